import type { WireManifest } from '../../../src/manifest/manifest-schema.js';
import type { Finding } from '../finding.js';
import { capabilityNoLongerAdvertised, capabilityRemoved } from './capability-rules.js';
import { opcodeNewUngated, opcodeNumberReused, opcodeRemoved, payloadKindChanged } from './opcode-rules.js';
import { fieldTypeChanged, payloadFieldMadeRequired, payloadFieldRemoved } from './payload-rules.js';
import { errorCodeRemoved, eventTypeRemoved, flagValueChanged, opcodeGatingChanged, wireVersionChanged } from './surface-rules.js';
import { limitLowered } from './limit-rules.js';
import type { StaticRule } from './types.js';

/** The static pass, by catalog id. Every active static rule in the catalog has an entry here (tested). */
export const STATIC_RULES: Readonly<Record<string, StaticRule>> = {
  OPCODE_NUMBER_REUSED: opcodeNumberReused,
  OPCODE_REMOVED: opcodeRemoved,
  OPCODE_NEW_UNGATED: opcodeNewUngated,
  PAYLOAD_FIELD_REMOVED: payloadFieldRemoved,
  PAYLOAD_FIELD_MADE_REQUIRED: payloadFieldMadeRequired,
  PAYLOAD_KIND_CHANGED: payloadKindChanged,
  CAPABILITY_REMOVED: capabilityRemoved,
  CAPABILITY_NO_LONGER_ADVERTISED: capabilityNoLongerAdvertised,
  WIRE_VERSION_CHANGED: wireVersionChanged,
  FIELD_TYPE_CHANGED: fieldTypeChanged,
  ERROR_CODE_REMOVED: errorCodeRemoved,
  EVENT_TYPE_REMOVED: eventTypeRemoved,
  FLAG_VALUE_CHANGED: flagValueChanged,
  OPCODE_GATING_CHANGED: opcodeGatingChanged,
  LIMIT_LOWERED: limitLowered,
};

export function runStaticRules(baseline: WireManifest, current: WireManifest): Finding[] {
  return Object.values(STATIC_RULES).flatMap((rule) => rule(baseline, current));
}
