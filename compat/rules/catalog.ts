/**
 * Every rule the gate has ever had. Ids are permanent: a rule that is no
 * longer run stays here marked retired, and its id is never reused.
 */
export interface RuleEntry {
  readonly id: string;
  readonly pass: 'static' | 'dynamic';
  readonly purpose: string;
  readonly compatibilityRule: 1 | 2 | 3 | null;
  readonly retired?: boolean;
}

export const RULE_CATALOG = [
  { id: 'OPCODE_NUMBER_REUSED', pass: 'static', compatibilityRule: 2, purpose: 'An opcode number that shipped now names a different opcode, so each side misreads the other.' },
  { id: 'OPCODE_REMOVED', pass: 'static', compatibilityRule: 2, purpose: 'An opcode number disappeared without a retired tombstone, so its number can be reused and old peers that send it are dropped.' },
  { id: 'OPCODE_NEW_UNGATED', pass: 'static', compatibilityRule: 2, purpose: 'A new opcode has no gating capability, so it can reach an old decoder that drops it.' },
  { id: 'PAYLOAD_FIELD_REMOVED', pass: 'static', compatibilityRule: 3, purpose: 'A payload field the baseline declared is gone, so an old reader of that field no longer gets it.' },
  { id: 'PAYLOAD_FIELD_MADE_REQUIRED', pass: 'static', compatibilityRule: 1, purpose: 'A field optional in the baseline, or absent from it, is now required, so the new reader refuses frames from old writers.' },
  { id: 'PAYLOAD_KIND_CHANGED', pass: 'static', compatibilityRule: 2, purpose: "An opcode's payload encoding (text, empty, flag, json) changed, so neither side reads the other's payload." },
  { id: 'CAPABILITY_REMOVED', pass: 'static', compatibilityRule: 2, purpose: 'A capability the baseline registered is gone, so peers that negotiate it silently lose the feature.' },
  { id: 'CAPABILITY_NO_LONGER_ADVERTISED', pass: 'static', compatibilityRule: 2, purpose: 'The reference host or client stopped advertising a capability the baseline advertised, so the echo drops it.' },
  { id: 'WIRE_VERSION_CHANGED', pass: 'static', compatibilityRule: 2, purpose: 'The wire version in byte 1 of every frame changed, so each side refuses the other’s frames.' },
  { id: 'FIELD_TYPE_CHANGED', pass: 'static', compatibilityRule: 3, purpose: 'A payload field’s JSON type changed, so a reader of one version refuses or misreads the other’s values.' },
  { id: 'ERROR_CODE_REMOVED', pass: 'static', compatibilityRule: 3, purpose: 'An Error code the baseline declared is gone or renamed, so old clients that act on it never see it.' },
  { id: 'EVENT_TYPE_REMOVED', pass: 'static', compatibilityRule: 3, purpose: 'A Metadata event type the baseline declared is gone, so old clients that wait for it never get it.' },
  { id: 'FLAG_VALUE_CHANGED', pass: 'static', compatibilityRule: 3, purpose: 'A flag value that shipped changed meaning or disappeared, so one side misreads or drops the other’s flag.' },
  { id: 'OPCODE_GATING_CHANGED', pass: 'static', compatibilityRule: 2, purpose: 'An opcode lost its gating capability or moved to another, so it reaches peers that never negotiated it.' },
  { id: 'LIMIT_LOWERED', pass: 'static', compatibilityRule: 3, purpose: 'A default a peer of another version relies on (a host limit its clients stay inside, a client delay its hosts count on) went down.' },
  { id: 'FRAME_REFUSED', pass: 'dynamic', compatibilityRule: 2, purpose: "The receiving build's decoder refused a frame the other build wrote." },
  { id: 'GATED_FRAME_NOT_NEGOTIATED', pass: 'dynamic', compatibilityRule: 2, purpose: 'A frame whose opcode is gated by a capability was sent in a pairing, or on a stream, that did not negotiate it.' },
  { id: 'UNGATED_SEND_DROPPED', pass: 'dynamic', compatibilityRule: 2, purpose: "The new build tried to send a gated frame on a stream that did not negotiate its capability, and its send gate dropped it (so nothing crossed the wire); reported with the send site." },
  { id: 'JOURNEY_STALLED', pass: 'dynamic', compatibilityRule: null, purpose: 'A journey step did not reach its barrier before the deadline.' },
  { id: 'FRAME_SEQUENCE_CHANGED', pass: 'dynamic', compatibilityRule: 3, purpose: "The frames a build wrote in a step differ from what the derived expectation (a same-version reference run) says that step carries." },
  { id: 'FRAME_COUNT_CHANGED', pass: 'dynamic', compatibilityRule: 3, purpose: 'A build writes a frame in a step far more often, per second of the step, than its reference does (the sequence rule folds repetitions).' },
  { id: 'FIELD_STOPPED_PUBLISHING', pass: 'dynamic', compatibilityRule: 3, purpose: 'A JSON field the old build publishes in a frame occurrence is absent from the new build’s frame for the same occurrence.' },
  { id: 'FIELD_VALUE_CHANGED', pass: 'dynamic', compatibilityRule: 3, purpose: 'A value the new build publishes toward the old build differs from what the old build’s own counterpart publishes for the same frame occurrence (volatile fields excepted).' },
  { id: 'FRAME_NO_LONGER_SENT', pass: 'dynamic', compatibilityRule: 3, purpose: 'A frame the old build’s counterpart sends in old × old is no longer sent by the new build toward the old build, where the step’s frame sequence cannot show it.' },
  { id: 'CAPABILITY_ECHO_MISMATCH', pass: 'dynamic', compatibilityRule: 2, purpose: 'The negotiated capabilities differ from the intersection of what the two builds advertise in their manifests.' },
  { id: 'INPUT_NOT_EXACTLY_ONCE', pass: 'dynamic', compatibilityRule: null, purpose: 'What reached the terminal is not exactly the input the client typed, once and in order.' },
  { id: 'SNAPSHOT_CONTENT_CHANGED', pass: 'dynamic', compatibilityRule: 3, purpose: "The new host's snapshot text for an occurrence differs from the old host's for the same occurrence of the same deterministic journey." },
  { id: 'SCREEN_MISMATCH', pass: 'dynamic', compatibilityRule: null, purpose: "The client's screen differs from the host's screen at the end of the journey." },
  { id: 'LIVENESS_ANSWER_CHANGED', pass: 'dynamic', compatibilityRule: 3, purpose: 'The new build answers the old build’s pings with no pong, or with a pong that does not echo the ping’s payload, so the old peer declares a live link dead.' },
  { id: 'DECODERS_DISAGREE', pass: 'dynamic', compatibilityRule: 2, purpose: 'The old and the new decoder, fed the same mutated frames, disagree (one accepts what the other refuses, or they read different values) where no change to the opcode is declared.' },
  { id: 'SURFACE_NOT_EXERCISED', pass: 'dynamic', compatibilityRule: null, purpose: 'A surface entry new since the baseline crossed no wire in a pairing where it can appear, so no journey proves it works against the other version.' },
  { id: 'BEHAVIOUR_NOT_REACHED', pass: 'dynamic', compatibilityRule: null, purpose: 'A (state, frame) pair or boundary condition of the behaviour table that both builds support was reached by no walk in a direction, and no reviewed exemption says why, so no journey proves it works against the other version.' },
] as const satisfies readonly RuleEntry[];

export type RuleId = (typeof RULE_CATALOG)[number]['id'];

export function ruleEntry(id: string): RuleEntry | undefined {
  return (RULE_CATALOG as readonly RuleEntry[]).find((r) => r.id === id);
}

export function activeRules(pass: 'static' | 'dynamic'): readonly RuleEntry[] {
  return (RULE_CATALOG as readonly RuleEntry[]).filter((r) => r.pass === pass && !r.retired);
}
