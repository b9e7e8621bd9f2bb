/**
 * Every capability a peer can negotiate at subscribe time, the wire version it
 * came in, and what it gates. The opcode table names its gating capability from
 * this list, so one place says what needs negotiating.
 */
export interface CapabilitySpec {
  readonly since: number;
  readonly gatesOpcodes: readonly string[];
  readonly gatesFields: readonly string[];
  readonly purpose: string;
  /** false while the feature is unfinished: registered (opcodes may name it) but not advertised by this build's host or client. */
  readonly advertised?: false;
}

export const CAPABILITIES = {
  ackOutput: {
    since: 1,
    gatesOpcodes: [] as readonly string[],
    gatesFields: ['Ack.bytes'] as readonly string[],
    purpose: 'the client promises to return Ack {bytes}, so the host may hold output past the window until credit returns',
  },
  outputPause: {
    since: 1,
    gatesOpcodes: ['SetOutputPaused'] as readonly string[],
    gatesFields: [] as readonly string[],
    purpose: 'the client can pause output of a hidden pane',
  },
  writeUnavailable: {
    since: 1,
    gatesOpcodes: ['WriteUnavailable'] as readonly string[],
    gatesFields: [] as readonly string[],
    purpose: 'the host tells the client the terminal refuses writes',
  },
  inputAck: {
    since: 1,
    gatesOpcodes: ['InputAck'] as readonly string[],
    gatesFields: ['Subscribe.inputSessionId', 'subscribed.inputLedgerId', 'Input seq'] as readonly string[],
    purpose: 'exactly-once input: sequenced Input acknowledged by InputAck (go-back-N)',
  },
  snapshotCause: {
    since: 1,
    gatesOpcodes: [] as readonly string[],
    gatesFields: ['SnapshotStart.cause'] as readonly string[],
    purpose: "SnapshotStart says why it was sent in cause (subscribe, request, resume, overflow) where source said 'recovery' for both a resumed pane and lost output; a peer without it gets source (projection SnapshotStart.cause-as-source)",
  },
  outputResume: {
    since: 1,
    gatesOpcodes: [] as readonly string[],
    gatesFields: ['Subscribe.resumeFrom', 'Subscribe.resumeInstanceId', 'subscribed.resume'] as readonly string[],
    purpose: 'a resubscribing client names the last Output seq it received; the host replays the output after it from its history instead of a snapshot, and says in subscribed.resume whether it did (src/codec/resume-outcome.ts)',
  },
  snapshotRepaint: {
    since: 1,
    gatesOpcodes: [] as readonly string[],
    gatesFields: [] as readonly string[],
    purpose:
      "the host serialises the client's snapshots in the repaint form (src/screen/serialize-screen.ts): blank rows that carry only a background, the cursor after a last column written, keypad mode as ESC =, no stray character from a forced wrap; a client without it gets the form released clients draw",
  },
} as const satisfies Record<string, CapabilitySpec>;

export type CapabilityName = keyof typeof CAPABILITIES;

export const CAPABILITY_NAMES = Object.keys(CAPABILITIES) as CapabilityName[];

/** Version 1 of every capability; a capability's number changes when its meaning does. */
export type CapabilitySet = Partial<Record<string, number>>;
