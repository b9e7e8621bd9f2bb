import { type Direction, OPCODES } from '../../src/codec/opcodes.js';

/**
 * The protocol's behaviour, as the gate reads it off the wire: the states a
 * stream (or its link) is in when a frame crosses, which frames may cross in
 * each, and the boundary conditions of each mechanism. Every walk is
 * classified against this table (behaviour-walk.ts), and a pair or condition
 * both builds support that no walk reached is a finding (BEHAVIOUR_NOT_REACHED)
 * unless behaviour-exemptions.ts says why.
 */
export const BEHAVIOUR_STATES = {
  link: 'stream 0: the connection before a stream exists (Subscribe, and errors about it)',
  live: 'subscribed, its output flowing',
  paused: 'hidden: its client paused the output (SetOutputPaused) and has not resumed it',
  exited: "its program exited (Metadata exit); the stream stays until its client unsubscribes",
  unsubscribed: 'its client unsubscribed it: anything later on it is late',
  silent: 'its link went silent: what is sent into it never arrives',
} as const;
export type BehaviourState = keyof typeof BEHAVIOUR_STATES;

/** A frame as behaviour counts it: an opcode, a Metadata event as `Metadata:<type>`. */
export type BehaviourFrame = string;

/** Metadata's events, each its own frame: a host that withholds one event in a state is a different behaviour. */
const METADATA_EVENTS = ['subscribed', 'title', 'exit', 'unsubscribed'] as const;

/** The frames a side writes, from the opcode table (OutputSpan aside: the reference host never writes it). */
export function framesFrom(direction: Direction): BehaviourFrame[] {
  return Object.values(OPCODES)
    .filter((o) => o.direction === direction && !('retired' in o && o.retired))
    .flatMap((o) => (o.name === 'Metadata' ? METADATA_EVENTS.map((e) => `Metadata:${e}`) : [o.name]));
}

/**
 * Which frames may cross in each state: what a peer of either version may
 * send there and the other must handle. A frame not listed for a state is not
 * a behaviour the protocol defines there (a race at most), so no walk is asked
 * to reach it.
 */
export const MAY_CROSS: Readonly<Record<BehaviourState, { readonly client: readonly BehaviourFrame[]; readonly host: readonly BehaviourFrame[] }>> = {
  link: { client: ['Subscribe'], host: ['Error'] },
  live: {
    client: ['Input', 'Resize', 'SnapshotRequest', 'Ack', 'ClaimViewport', 'SetOutputPaused', 'Unsubscribe'],
    host: ['Metadata:subscribed', 'Output', 'SnapshotStart', 'SnapshotChunk', 'SnapshotEnd', 'Resized', 'Error', 'Metadata:title', 'Metadata:exit', 'InputAck'],
  },
  paused: {
    client: ['Input', 'SetOutputPaused', 'Resize', 'Unsubscribe'],
    host: ['Resized', 'Metadata:title', 'InputAck'],
  },
  exited: {
    client: ['Input', 'Ack', 'Unsubscribe'],
    host: ['InputAck', 'WriteUnavailable', 'Error'],
  },
  unsubscribed: { client: ['Input'], host: ['Metadata:unsubscribed', 'Error'] },
  silent: { client: ['Input'], host: [] },
};

/** The walks beside the script that reach some conditions; a run that leaves one out does not judge those. */
export type BehaviourWalk = 'restart' | 'lifetime' | 'capabilityOff';

/** A boundary condition of one mechanism, and the surface entries (capabilities included) both builds must have for a walk to reach it. */
export interface BehaviourCondition {
  readonly mechanism: 'input' | 'snapshot' | 'resize' | 'credit' | 'link' | 'lifetime' | 'limit' | 'liveness';
  readonly meaning: string;
  readonly needs?: readonly string[];
  /** Reached only by this walk, not by the script. */
  readonly walkedBy?: BehaviourWalk;
  /** How the sender cuts its data is its own choice (a receiver takes any cut): reported, never a finding. */
  readonly senderPolicy?: true;
}

export const BEHAVIOUR_CONDITIONS = {
  'input.unsequenced': { mechanism: 'input', meaning: 'input without a sequence number (no inputAck negotiated): at most once', walkedBy: 'capabilityOff' },
  'input.inOrder': { mechanism: 'input', meaning: 'sequenced input applied in order and acknowledged', needs: ['capability:inputAck'] },
  'input.severalFrames': { mechanism: 'input', meaning: 'one write carried in several Input frames back to back (a paste)', senderPolicy: true },
  'input.gapped': { mechanism: 'input', meaning: 'a sequenced Input arrives after a gap: one before it was lost', needs: ['capability:inputAck'] },
  'input.duplicated': { mechanism: 'input', meaning: 'a sequenced Input the host already applied arrives again', needs: ['capability:inputAck'] },
  'input.refused': { mechanism: 'input', meaning: 'the host asks for a resend where nothing was lost: it refused the write', needs: ['capability:inputAck'] },
  'input.unknown': { mechanism: 'input', meaning: 'the host cannot tell whether a write reached the terminal (deliveryUnknown)', needs: ['capability:inputAck'] },
  'input.stalled': { mechanism: 'input', meaning: 'the client resends unacknowledged input on the same connection with no resend asked: an InputAck was lost', needs: ['capability:inputAck'] },
  'input.acrossReconnect': { mechanism: 'input', meaning: 'input sent on a dead connection is sent again on the next one', needs: ['capability:inputAck'] },
  'snapshot.oneChunk': { mechanism: 'snapshot', meaning: 'a snapshot whose screen fits one chunk', senderPolicy: true },
  'snapshot.severalChunks': { mechanism: 'snapshot', meaning: 'a snapshot whose screen spans several chunks', senderPolicy: true },
  'snapshot.chunkSplitsEscape': { mechanism: 'snapshot', meaning: 'a chunk boundary falls inside an escape sequence: the client must join the chunks before it parses', senderPolicy: true },
  'snapshot.answersRequest': { mechanism: 'snapshot', meaning: 'a snapshot that answers a SnapshotRequest (it carries the requestId)' },
  'snapshot.requestsMerged': { mechanism: 'snapshot', meaning: 'a second SnapshotRequest on a stream before the first is answered' },
  'resize.merged': { mechanism: 'resize', meaning: "several Resizes inside the host's resize interval: the last size wins" },
  'credit.returned': { mechanism: 'credit', meaning: 'the client returns credit (Ack) for output it consumed', needs: ['capability:ackOutput'] },
  'credit.overflow': { mechanism: 'credit', meaning: 'output outran the stream: the host dropped it and repainted with an overflow snapshot' },
  'link.reconnectSameInstance': { mechanism: 'link', meaning: 'a client subscribes again on a new connection to the same terminal instance' },
  'link.reconnectNewInstance': { mechanism: 'link', meaning: 'a client subscribes again and finds a new instance of its terminal (the host restarted)', needs: ['field:Metadata[type=subscribed].instanceId'], walkedBy: 'restart' },
  'link.pausedAcrossReconnect': { mechanism: 'link', meaning: 'a stream paused on one connection is subscribed again on the next', needs: ['capability:outputPause'] },
  'lifetime.foundAgain': { mechanism: 'lifetime', meaning: 'a client comes back on its connection to a terminal it left detached, within its lifetime, and finds it', needs: ['field:Metadata[type=subscribed].instanceId'] },
  'lifetime.expired': { mechanism: 'lifetime', meaning: 'a client comes back after the host ended the terminal it left detached past its lifetime, and gets a new one', needs: ['field:Metadata[type=subscribed].instanceId'], walkedBy: 'lifetime' },
  'lifetime.newAfterExit': { mechanism: 'lifetime', meaning: "a client subscribes again to a terminal whose program exited, and gets a new one", needs: ['field:Metadata[type=subscribed].instanceId'] },
  'link.silentThenDead': { mechanism: 'liveness', meaning: 'frames went into a silent link and the client gave it up: its liveness deadline passed' },
  'liveness.pingAnswered': { mechanism: 'liveness', meaning: 'each side answers the other side’s ping before its deadline' },
  'limit.overThenUnder': { mechanism: 'limit', meaning: 'a host limit refuses a request, and a later one within the limit is accepted on the same connection' },
} as const satisfies Record<string, BehaviourCondition>;
export type BehaviourConditionName = keyof typeof BEHAVIOUR_CONDITIONS;

/** A pair's key in reports and exemptions: `paused × Input`. */
export const pairKey = (state: BehaviourState, frame: BehaviourFrame) => `${state} × ${frame}`;

/** The surface entry a state is entered by: where a pairing cannot carry it, no frame crosses in that state. */
const STATE_ENTERED_BY: Readonly<Partial<Record<BehaviourState, string>>> = {
  paused: 'opcode:SetOutputPaused',
  exited: 'event:exit',
  unsubscribed: 'opcode:Unsubscribe',
};

/** The surface entries a frame is: its opcode, and for a Metadata event the event too. */
const entriesOfFrame = (frame: BehaviourFrame) => (frame.startsWith('Metadata:') ? ['opcode:Metadata', `event:${frame.slice('Metadata:'.length)}`] : [`opcode:${frame}`]);

/** Something the table declares, with the surface entries a pairing must carry for a walk to reach it. */
export interface BehaviourItem {
  readonly key: string;
  readonly kind: 'pair' | 'condition';
  readonly needs: readonly string[];
  readonly walkedBy?: BehaviourWalk;
  readonly senderPolicy?: true;
}

/** Every (state, frame) pair and every condition the table declares. */
export function declaredBehaviour(): BehaviourItem[] {
  const pairs = (Object.keys(MAY_CROSS) as BehaviourState[]).flatMap((state) =>
    (['client', 'host'] as const).flatMap((writer) =>
      MAY_CROSS[state][writer].map((frame) => ({ key: pairKey(state, frame), kind: 'pair' as const, needs: [...entriesOfFrame(frame), ...(STATE_ENTERED_BY[state] ? [STATE_ENTERED_BY[state]] : [])] })),
    ),
  );
  const conditions = Object.entries(BEHAVIOUR_CONDITIONS).map(([key, c]): BehaviourItem => ({ key, kind: 'condition', needs: 'needs' in c ? [...c.needs] : [], ...('walkedBy' in c ? { walkedBy: c.walkedBy } : {}), ...('senderPolicy' in c ? { senderPolicy: true as const } : {}) }));
  return [...pairs, ...conditions];
}
