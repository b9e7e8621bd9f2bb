import { ruleEntry } from '../rules/catalog.js';

/** How to fix a finding, and where the docs explain it. */
export interface FixHint { readonly fix: string; readonly docs: string }

const RULE_1 = 'docs/compatibility.md#the-three-rules';
const GATING = 'docs/adding-an-opcode.md#3-negotiate-then-gate-both-directions';
const REGISTER = 'docs/adding-an-opcode.md#2-register-it-one-table-each';

/**
 * One hint per rule id. Kept apart from the rule catalog on purpose: a rule
 * added there without a hint here still gets the fallback for its
 * compatibility rule, so the two tables change independently.
 */
export const FIX_HINTS: Readonly<Record<string, FixHint>> = {
  OPCODE_NUMBER_REUSED: { fix: 'give the new opcode the next free number; a number that shipped keeps its name forever (mark a removed one retired)', docs: REGISTER },
  OPCODE_REMOVED: { fix: 'keep the opcode in the table marked retired, so its number is never reused', docs: REGISTER },
  OPCODE_NEW_UNGATED: { fix: 'gate the opcode behind a capability (`gatedBy`) and send it only after the peer echoes it', docs: GATING },
  PAYLOAD_FIELD_REMOVED: { fix: 'keep publishing the field, or gate its removal behind a capability old peers do not negotiate', docs: GATING },
  PAYLOAD_FIELD_MADE_REQUIRED: { fix: 'keep the field `.optional()` in the reader: peers that predate it never send it', docs: RULE_1 },
  PAYLOAD_KIND_CHANGED: { fix: 'keep the payload encoding; send the new encoding on a new, gated opcode', docs: GATING },
  CAPABILITY_REMOVED: { fix: 'keep the capability registered (unadvertised if retired) until no supported release negotiates it', docs: REGISTER },
  CAPABILITY_NO_LONGER_ADVERTISED: { fix: 'keep advertising the capability in the defaults, or acknowledge the retirement', docs: GATING },
  FRAME_REFUSED: { fix: "make the writer send only what the receiver's schema accepts, or gate the change behind a capability", docs: GATING },
  GATED_FRAME_NOT_NEGOTIATED: { fix: "send the frame through the stream's SendGate, only after the capability's echo", docs: GATING },
  UNGATED_SEND_DROPPED: { fix: "at the send site, send the frame only where the stream negotiated its capability (check the echo), or send what the older peer understands instead", docs: GATING },
  FRAME_SEQUENCE_CHANGED: { fix: 'send the frames an old peer expects on this path, or gate the new sequence behind a capability', docs: GATING },
  FIELD_STOPPED_PUBLISHING: { fix: 'keep populating the field for peers that did not negotiate its replacement', docs: GATING },
  CAPABILITY_ECHO_MISMATCH: { fix: 'echo exactly the intersection of what both sides advertise', docs: GATING },
  SNAPSHOT_CONTENT_CHANGED: { fix: 'keep the snapshot text old clients render, or gate the new form behind a capability', docs: GATING },
  JOURNEY_STALLED: { fix: 'look at the first frame refused or missing before this step: the stall is where it showed, not where it began', docs: 'docs/compatibility.md#how-the-gate-runs' },
  INPUT_NOT_EXACTLY_ONCE: { fix: 'look at input delivery (go-back-N) in this pairing: the ledger, the journal and the inputAck echo', docs: 'docs/protocol.md' },
  WIRE_VERSION_CHANGED: { fix: 'keep writing wire version 1: a decoder refuses every frame of a version it does not speak; a new wire version needs its own negotiation', docs: 'docs/protocol.md' },
  FIELD_TYPE_CHANGED: { fix: "keep the field's JSON type; publish the new type in a new field, gated if old readers must not see it", docs: GATING },
  ERROR_CODE_REMOVED: { fix: 'keep the error code (codes are permanent once shipped); add a new code beside it for a new meaning', docs: REGISTER },
  EVENT_TYPE_REMOVED: { fix: 'keep publishing the event type for peers that did not negotiate its replacement', docs: GATING },
  FLAG_VALUE_CHANGED: { fix: 'a flag value keeps its meaning forever: give the new meaning a new value, gated by a capability', docs: REGISTER },
  LIMIT_LOWERED: { fix: 'keep the default at least where it was: peers of the last release stay inside it (raise it freely); if lowering is intended, acknowledge it and say which peers it breaks', docs: 'docs/compatibility.md#promised-limits' },
  OPCODE_GATING_CHANGED: { fix: "keep the opcode gated by the capability it shipped with: old peers rely on it never arriving un-negotiated", docs: GATING },
  FIELD_VALUE_CHANGED: { fix: 'keep the value old readers expect (units, meaning, code); publish the new value in a new field, or project it (section 3a)', docs: 'docs/adding-an-opcode.md#3a-when-an-existing-frame-changes-shape-a-projection' },
  FRAME_NO_LONGER_SENT: { fix: 'keep sending the frame on this path to peers that did not negotiate its replacement', docs: GATING },
  SURFACE_NOT_EXERCISED: { fix: 'add the journey step that puts this entry on the wire (compat/journey/surface-steps.ts)', docs: 'docs/compatibility.md#coverage-every-entry-crosses-the-wire' },
  BEHAVIOUR_NOT_REACHED: { fix: 'add the step that walks it (compat/journey/behaviour-steps.ts), or exempt it with its reason (compat/coverage/behaviour-exemptions.ts)', docs: 'docs/compatibility.md#behaviour-coverage' },
  LIVENESS_ANSWER_CHANGED: { fix: 'answer every ping with a pong carrying its payload unchanged (let ws auto-pong): old peers check the echo', docs: 'docs/protocol.md' },
  DECODERS_DISAGREE: { fix: 'decode what the last release decodes, the same way; a stricter or looser reader is a wire change: declare it in the opcode table and gate it', docs: 'docs/compatibility.md#the-differential-codec-check' },
  FRAME_COUNT_CHANGED: { fix: 'look for a timer or a retry loop that fires more often than before: keep its backoff, or gate the new rate like an opcode', docs: GATING },
  SCREEN_MISMATCH: { fix: 'look at the snapshots and output this pairing exchanged: the client rendered something the host did not hold', docs: 'docs/protocol.md' },
};

const BY_COMPATIBILITY_RULE: Record<1 | 2 | 3, FixHint> = {
  1: { fix: 'keep every new field optional for its readers', docs: RULE_1 },
  2: { fix: 'gate the change behind a capability and act on it only after the echo', docs: GATING },
  3: { fix: 'gate the changed publishing like an opcode', docs: GATING },
};
const GENERIC: FixHint = { fix: 'see the compatibility rules', docs: 'docs/compatibility.md#the-three-rules' };

export function fixHint(ruleId: string): FixHint {
  const rule = ruleEntry(ruleId)?.compatibilityRule;
  return FIX_HINTS[ruleId] ?? (rule ? BY_COMPATIBILITY_RULE[rule] : GENERIC);
}
