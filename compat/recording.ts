import type { CapabilitySet } from '../src/capabilities/registry.js';

/** What the journey runner records for one pairing; the dynamic rules read only this. */
export type Side = 'old' | 'new';

/**
 * The scripted journey every pairing walks, in this order: the one list of
 * it. compat/journey/script-journey.ts maps each name to its step (a name
 * without a step does not compile), and a step is added by naming it here.
 */
export const SCRIPT_STEP_NAMES = [
  'subscribe',
  'initialSnapshot',
  'input',
  'liveOutput',
  'title',
  'twoStreams',
  'paste',
  'resizesMerged',
  'colouredLines',
  'burst',
  'overflowRecovery',
  'hideReveal',
  'activityWhileHidden',
  'reattach',
  'drop',
  'typedWhileDown',
  'pasteWithdrawn',
  'resubscribe',
  'inputAfterReconnect',
  'hiddenAcrossReconnect',
  'ignoredOutput',
  'provokedErrors',
  'inputResend',
  'inputDuplicated',
  'deliveryUnknown',
  'writeRefused',
  'inputAckLost',
  'secondClient',
  'resize',
  'claimViewport',
  'limitsReached',
  'limitsClosed',
  'exit',
  'inputAfterExit',
  'unsubscribe',
  'inputAfterUnsubscribe',
  'lateSubscriber',
  'killed',
  'wrongToken',
] as const;
export type ScriptStepName = (typeof SCRIPT_STEP_NAMES)[number];

/** Steps only the restart, byte-stream and lifetime passes walk, after the script's. */
const PASS_STEP_NAMES = ['hostRestart', 'inputAfterRestart', 'linkClosed', 'backWithinLifetime', 'backAfterLifetime'] as const;

/** Every step a recording can name, in the order findings are sorted. */
export const STEP_NAMES = [...SCRIPT_STEP_NAMES, ...PASS_STEP_NAMES] as const;
export type StepName = (typeof STEP_NAMES)[number];

/** Which snapshot of the journey a frame belongs to; repeated frame shapes are compared per occurrence. */
export const OCCURRENCES = ['initial', 'reveal', 'reconnect', 'attach'] as const;
export type Occurrence = (typeof OCCURRENCES)[number];

export type FrameDirection = 'clientToHost' | 'hostToClient';

/**
 * Which connection a frame belongs to: the client process that drives the
 * journey, the second one attached to the same terminal, or the proxy's own
 * probe, a peer no client library is (it sends what no client sends).
 */
export type ClientLabel = 'primary' | 'second' | 'probe';
/** A client process of the journey: the proxy bridges, holds and faults its connections (the probe is the proxy's own). */
export type ClientProcessLabel = Exclude<ClientLabel, 'probe'>;

export interface RecordedFrame {
  index: number;
  direction: FrameDirection;
  step: StepName;
  occurrence?: Occurrence;
  opcode: number;
  opcodeName: string;
  streamId: number;
  seq: number;
  /** Decoded by the AUTHOR's codec: a JSON object, text, {hex} where it refused the frame, or {textLeftOut} for output (record-frames.ts). */
  payload: unknown;
  rawHex: string;
  /** The client whose connection the frame crossed; absent means primary. */
  client?: ClientLabel;
  /** The proxy's connection number (1 for the first, counting every client's connects and reconnects). */
  connection?: number;
  /** A fault the proxy applied: a frame it did not forward (dropped on purpose, or sent into a silent link), or one it wrote itself (never the client's). */
  fault?: 'dropped' | 'injected';
  /** Set when the RECEIVING build's decoder refused the frame. */
  refusedBy?: { code: string; message: string };
}

/**
 * One ping and what became of it. The proxy forwards pings and pongs between
 * the real peers, so each build's answer reaches the other build as it would
 * on a real network; the proxy also asks the client once per connection, on
 * the host's behalf, since a host pings only after its interval.
 */
export interface LivenessExchange {
  readonly step: string;
  readonly connection: number;
  readonly client: ClientLabel;
  /** The side that had to answer. */
  readonly answerer: 'client' | 'host';
  /** echoed: a pong with the ping's payload; otherPayload: a pong with anything else; unanswered: none while the link stayed up. */
  readonly outcome: 'echoed' | 'otherPayload' | 'unanswered';
  readonly pingHex: string;
  readonly pongHex?: string;
}

/**
 * A connection the client ended itself, without a close frame, while the proxy
 * forwarded everything: its own liveness gave up on a link that was up (its
 * event loop held past the pong deadline on a busy machine), or it crashed.
 * No step plans one, so a walk that has one did not walk the journey it
 * describes, and what it shows is no verdict on its own.
 */
export interface UnplannedEnd {
  readonly step: string;
  readonly connection: number;
  readonly client: ClientLabel;
}

/**
 * How the host ended a connection of the proxy's probe. After a flood of
 * frames that each earn an Error: closed (a limit's close, with its code and
 * reason), or still open when a ping sent after the whole flood was answered;
 * the flood's replies are counted, not recorded as frames, since how many
 * precede the close depends on how much the host's rate bucket refilled while
 * it read the flood, which is timing. For an upgrade with a token the host
 * never issued: refused (with its HTTP status, absent where the socket was
 * dropped without one), or admitted.
 */
export interface ProbeEnd {
  readonly step: string;
  readonly connection: number;
  readonly outcome: 'closed' | 'stayedOpen' | 'refused' | 'admitted';
  readonly code?: number;
  readonly reason?: string;
  readonly status?: number;
  /** Frames the host sent on the probe while a flood lasted; no rule compares it. */
  readonly answeredFrames: number;
  /** For the last of wrong tokens tried one after another: milliseconds from sending the first attempt to this answer, which the delays of the failures before it bound from below. */
  readonly sinceFirstAttemptMs?: number;
  /** How many wrong tokens from the same network failed before this one. */
  readonly failuresBefore?: number;
}

export interface StepResult {
  name: StepName;
  status: 'ok' | 'stalled' | 'skipped';
  /** For a stall: what the barrier was still waiting for. */
  missing?: string;
  /** For a skip: why (a peer of this gate run cannot drive it, the pairing did not negotiate what it needs, an earlier stall). */
  reason?: string;
  durationMs: number;
}

export interface PairingRecording {
  client: Side;
  host: Side;
  clientVersion: string;
  hostVersion: string;
  steps: StepResult[];
  frames: RecordedFrame[];
  advertised: { client: CapabilitySet; host: CapabilitySet };
  /** What the client saw echoed on `subscribed`; undefined when no echo arrived. */
  negotiated: CapabilitySet | undefined;
  /**
   * Everything typed, in order, and what the terminal received. `atMostOnce`
   * is the part typed into a dead link: without exactly-once input (inputAck)
   * it may be lost, but never duplicated. `segments` is what each step typed,
   * in order, so each dark segment of a journey with several drops may be lost
   * on its own.
   */
  input: { typed: string; reachedTerminal: string; atMostOnce?: string; segments?: ReadonlyArray<{ readonly text: string; readonly atMostOnce?: true }> };
  screens: { client: string; host: string };
  peerErrors: string[];
  /** Every ping that crossed the proxy and its answer; absent in recordings made before pings were forwarded. */
  liveness?: LivenessExchange[];
  /** CPU its peer processes used (their shells included), in ms: what the pairing cost, for the run's cost lines. Absent in older recordings. */
  peerCpuMs?: number;
  /** Connections a client ended that no step ended (UnplannedEnd); absent when there were none. */
  unplannedEnds?: UnplannedEnd[];
  /** How the host ended each flood of the proxy's probe (ProbeEnd); absent where no step flooded. */
  probeEnds?: ProbeEnd[];
  /**
   * The screen each host snapshot draws (a digest of every cell, scrollback
   * included, the cursor, pen and modes), in the order the snapshots crossed:
   * two texts that draw the same screen are the same content. Recorded where
   * the old client reads them; absent in older recordings.
   */
  snapshotScreens?: string[];
  /** The capability the link withheld from every Subscribe (explore's `without:` move): no host heard of it, so none echoed it. */
  withheldCapability?: string;
  /** Gated frames each peer's send gates dropped, by the build that ran it; absent where no peer reported any (or could: older builds). */
  ungatedSends?: UngatedSendReport[];
}

/** One peer's dropped sends: the first ones with their send sites, and how many in all. */
export interface UngatedSendReport {
  role: 'host' | 'client' | 'second client';
  side: Side;
  count: number;
  first: Array<{ opcode: number; opcodeName: string; capability: string; streamId: number; site: string }>;
}

export type PairingKey = 'newNew' | 'oldOld' | 'oldClientNewHost' | 'newClientOldHost';

export type JourneyRecordingSet = Record<PairingKey, PairingRecording>;
