import type { CapabilitySet } from '../capabilities/registry.js';
import type { InputAckStatus } from '../codec/input-ack-flags.js';
import type { SubscribedEvent } from '../codec/schemas.js';
import type { AckBatcher } from './ack-batcher.js';
import type { OutputTracker } from './output-tracker.js';
import type { ClientProblem } from './problems.js';
import type { LocalScreen } from './screen.js';
import type { SnapshotAssembler } from './snapshot-assembler.js';
import type { ClientStreamEvents, StreamCounters } from './stream-events.js';

/**
 * Takes a stream's applied output in place of a local screen; calls
 * `delivered` once the text is where it goes (written to the terminal).
 */
export type OutputSink = (text: string, delivered: () => void) => void;

/** A stream's receive-side state, internal to the client. */
export interface StreamReceiveState {
  readonly assembler: SnapshotAssembler;
  readonly tracker: OutputTracker;
  /** Undefined when output goes to `sink` instead. */
  readonly screen: LocalScreen | undefined;
  readonly sink: OutputSink | undefined;
  ackBatcher: AckBatcher | undefined;
}

/** What routing a received frame (stream-receive.ts) needs from the stream it is addressed to. */
export interface ReceivingStream {
  readonly id: number;
  /** What the host echoed on the current connection. */
  readonly negotiated: CapabilitySet;
  readonly counters: StreamCounters;
  readonly rx: StreamReceiveState;
  /** The host echoed `subscribed`. */
  subscribed(event: SubscribedEvent): void;
  /** The terminal exited (its exit event). */
  exited(exit: ClientStreamEvents['exit']): void;
  /** An InputAck from the host (only on a stream that negotiated inputAck). */
  inputAcked(seq: number, ack: InputAckStatus): void;
  /** Asks the host for a snapshot; returns its requestId. */
  requestSnapshot(): string;
  /** The host confirmed Unsubscribe: the stream is closed for good. */
  finishClose(): void;
  raise<K extends keyof ClientStreamEvents>(event: K, payload: ClientStreamEvents[K]): void;
  problem(problem: ClientProblem): void;
}
