import { decodersDisagree } from '../codec-diff/decoders-disagree.js';
import { behaviourNotReached, surfaceNotExercised } from '../coverage/coverage-rules.js';
import { capabilityEchoMismatch } from './dynamic/capability-echo.js';
import { fieldStoppedPublishing } from './dynamic/field-publishing.js';
import { fieldValueChanged } from './dynamic/field-values.js';
import { frameCountChanged } from './dynamic/frame-counts.js';
import { frameNoLongerSent } from './dynamic/frame-presence.js';
import { frameSequenceChanged } from './dynamic/frame-sequence.js';
import { gatedFrameNotNegotiated } from './dynamic/gated-frame.js';
import { frameRefused, inputNotExactlyOnce, journeyStalled, screenMismatch, ungatedSendDropped } from './dynamic/journey-outcome-rules.js';
import { hostCloseChanged } from './dynamic/limit-closes.js';
import { livenessAnswerChanged } from './dynamic/liveness-answers.js';
import { snapshotContentChanged } from './dynamic/snapshot-content.js';
import type { RuleEntry, RuleSpec } from './rule-spec.js';
import { capabilityNoLongerAdvertised, capabilityRemoved } from './static/capability-rules.js';
import { limitLowered } from './static/limit-rules.js';
import { opcodeNewUngated, opcodeNumberReused, opcodeRemoved, payloadKindChanged } from './static/opcode-rules.js';
import { fieldTypeChanged, payloadFieldMadeRequired, payloadFieldRemoved } from './static/payload-rules.js';
import { errorCodeRemoved, eventTypeRemoved, flagValueChanged, opcodeGatingChanged, wireVersionChanged } from './static/surface-rules.js';

export type { RuleEntry } from './rule-spec.js';

/**
 * Every rule the gate has ever had, each spec written next to the code that
 * judges it (compat/rules/rule-spec.ts). Ids are permanent: a rule that is no
 * longer run stays here as a retired entry (id, pass, compatibilityRule,
 * purpose, `retired: true`), and its id is never reused.
 *
 * The order is the order the passes run the rules in, and so the order of
 * their findings before the report sorts them.
 */
export const RULE_CATALOG = [
  opcodeNumberReused,
  opcodeRemoved,
  opcodeNewUngated,
  payloadFieldRemoved,
  payloadFieldMadeRequired,
  payloadKindChanged,
  capabilityRemoved,
  capabilityNoLongerAdvertised,
  wireVersionChanged,
  fieldTypeChanged,
  errorCodeRemoved,
  eventTypeRemoved,
  flagValueChanged,
  opcodeGatingChanged,
  limitLowered,
  frameRefused,
  gatedFrameNotNegotiated,
  ungatedSendDropped,
  journeyStalled,
  frameSequenceChanged,
  frameCountChanged,
  fieldStoppedPublishing,
  fieldValueChanged,
  frameNoLongerSent,
  capabilityEchoMismatch,
  inputNotExactlyOnce,
  snapshotContentChanged,
  screenMismatch,
  livenessAnswerChanged,
  hostCloseChanged,
  decodersDisagree,
  surfaceNotExercised,
  behaviourNotReached,
] as const satisfies readonly RuleEntry[];

export type RuleId = (typeof RULE_CATALOG)[number]['id'];

export function ruleEntry(id: string): RuleEntry | undefined {
  return (RULE_CATALOG as readonly RuleEntry[]).find((r) => r.id === id);
}

export function activeRules(pass: 'static' | 'dynamic'): readonly RuleEntry[] {
  return (RULE_CATALOG as readonly RuleEntry[]).filter((r) => r.pass === pass && !r.retired);
}

const isSpec = (r: RuleEntry): r is RuleSpec => 'judgedOn' in r && !r.retired;

/** The specs of the rules the gate runs, in run order (retired entries have none). */
export function activeSpecs(): readonly RuleSpec[] {
  return (RULE_CATALOG as readonly RuleEntry[]).filter(isSpec);
}
