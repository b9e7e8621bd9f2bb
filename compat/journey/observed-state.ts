import type { ProbeEnd } from '../recording.js';
import type { ProxiedFrame } from './recording-proxy.js';

/** Gated frames a peer's send gates dropped (src/capabilities/send-gate.ts), the first ones with their send sites. */
export interface UngatedSendsSeen {
  readonly first: ReadonlyArray<{ readonly opcode: number; readonly opcodeName: string; readonly capability: string; readonly streamId: number; readonly site: string }>;
  readonly count: number;
}

/** What the peers report back over the control channel; barriers read only this and the frames the proxy saw. */
export interface ClientObservation {
  readonly connected: boolean;
  /** How many `subscribed` events the stream has seen (one per connection). */
  readonly subscribedCount: number;
  readonly negotiated: Record<string, number> | null;
  readonly advertised: Record<string, number>;
  readonly snapshots: ReadonlyArray<{ readonly source?: string; readonly requestId?: string }>;
  readonly screen: string;
  readonly disconnects: number;
  readonly unsubscribed: boolean;
  readonly errors: readonly string[];
  // Peer protocol 2 only; a step that waits on these needs the ops that bring them.
  readonly size?: { readonly cols: number; readonly rows: number } | null;
  readonly resizedCount?: number;
  readonly titles?: readonly string[];
  readonly exits?: number;
  readonly writeUnavailable?: number;
  readonly notices?: readonly string[];
  /** Reported by peers of builds that have it; absent from older ones. */
  readonly ungatedSends?: UngatedSendsSeen;
  /** The client's second stream on the same connection, once subscribeAlso opened it. */
  readonly also?: { readonly subscribedCount: number; readonly snapshots: number; readonly exits: number; readonly unsubscribed: boolean; readonly screen: string };
}

export interface HostObservation {
  /** What reached the terminal so far: it only grows. */
  readonly inputLog: string;
  readonly screen: string;
  /** Streams whose output is paused by SetOutputPaused. */
  readonly pausedStreams: number;
  readonly errors: readonly string[];
  /** Peer protocol 2: the most bytes ever waiting in one link's socket buffer. */
  readonly peakBufferedBytes?: number;
  readonly ungatedSends?: UngatedSendsSeen;
  /** Host peers taking `detachedIdleMs` (PEER_HOST_ARGS): whether the journey's terminal runs, and how many streams subscribe to it. */
  readonly terminal?: { readonly running: boolean; readonly subscribers: number };
}

/**
 * A host peer's `state` answer: the whole input log, or, where the caller
 * named how much of it it holds (`inputLogFrom`) and the peer reads that,
 * only what was added since.
 */
export type HostStateAnswer = Omit<HostObservation, 'inputLog'> & ({ readonly inputLog: string } | { readonly inputLogFrom: number; readonly inputLogAdded: string });

/**
 * The host's observations with their whole input log, from answers that may
 * hold only what was added: one per host peer, which the log belongs to.
 */
export class HostInputLog {
  private log = '';

  /** The `state` arguments: how much of the log this side holds. */
  get args(): { inputLogFrom: number } {
    return { inputLogFrom: this.log.length };
  }

  /** The answer as an observation with the whole log; answers of one peer may come back in any order, since its log only grows. */
  observed(answer: HostStateAnswer): HostObservation {
    if ('inputLogAdded' in answer) {
      const { inputLogFrom, inputLogAdded, ...rest } = answer;
      const whole = this.log.slice(0, inputLogFrom) + inputLogAdded;
      if (whole.length > this.log.length) this.log = whole;
      return { ...rest, inputLog: whole };
    }
    if (answer.inputLog.length > this.log.length) this.log = answer.inputLog;
    return answer;
  }
}

export interface Observation {
  readonly client: ClientObservation;
  /** The second client, once a step attached it. */
  readonly second?: ClientObservation;
  readonly host: HostObservation;
  /** Every frame the proxy has seen so far (it only grows), and how many there were when observed. */
  readonly wire: readonly ProxiedFrame[];
  readonly wireCount: number;
  /** How the host ended the proxy's probe connections, so far (it only grows). */
  readonly probeEnds: readonly ProbeEnd[];
  /** Frames of a flood the probe's host answered so far: progress, never compared. */
  readonly probeFloodAnswered: number;
}
