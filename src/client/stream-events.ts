import type { CapabilitySet } from '../capabilities/registry.js';
import type { DeliveryNotice } from '../delivery/notices.js';
import type { ClientProblem } from './problems.js';

/**
 * pending: waiting for a connection; subscribing: Subscribe sent, no echo yet;
 * live: subscribed on the current connection; closing: Unsubscribe sent;
 * closed: unsubscribed for good.
 */
export type StreamState = 'pending' | 'subscribing' | 'live' | 'closing' | 'closed';

export interface SnapshotAppliedEvent {
  /**
   * Why the host sent it: its `cause` where snapshotCause was negotiated
   * (subscribe, request, resume, overflow), else its `source` (subscribe, request, recovery).
   */
  readonly source: string | undefined;
  readonly requestId: string | undefined;
  readonly seq: number;
  readonly cols: number;
  readonly rows: number;
  readonly truncated: boolean;
  readonly bytes: number;
  /** The serialized screen, for renderers that repaint a real terminal from it. */
  readonly text: string;
  /** Output bytes between the last output applied on this connection and this snapshot: never received as output, only as this screen (0 for the first snapshot of a subscription or a reconnect). */
  readonly skippedBytes: number;
}

/**
 * What became of a resubscription's resume point (outputResume). `outcome` is
 * the host's `subscribed.resume`, or 'unsupported' from a host that did not
 * echo outputResume. Only 'resumed' means output continues where it left off
 * with no snapshot; otherwise a snapshot follows, and `skippedBytes` says how
 * much output it stands for (unknown when the terminal is a new instance).
 */
export interface ResumeResult {
  readonly outcome: string;
  /** The seq of the last output received before the link was lost. */
  readonly fromSeq: number;
  readonly skippedBytes?: number;
}

export interface ClientStreamEvents {
  /** The host's echo; `negotiated` is what it echoed (empty when it echoed nothing). */
  subscribed: { readonly cols: number; readonly rows: number; readonly seq: number; readonly negotiated: CapabilitySet; readonly instanceId?: string; readonly resume?: ResumeResult };
  /** A snapshot was queued onto the local screen (await whenIdle() to see it). */
  snapshot: SnapshotAppliedEvent;
  output: { readonly text: string; readonly seq: number };
  resized: { readonly cols: number; readonly rows: number; readonly reason: string | undefined };
  title: { readonly title: string };
  exit: { readonly exitCode: number | null | undefined; readonly signal: number | null | undefined };
  unsubscribed: { readonly streamId: number };
  /** An Error frame on this stream, split into its stable code and message. */
  errorFrame: { readonly code: string; readonly message: string };
  writeUnavailable: Record<string, never>;
  /** Output did not continue the last seq; `requestId` is the SnapshotRequest sent to resync. */
  gap: { readonly expectedStart: number; readonly seq: number; readonly bytes: number; readonly requestId: string };
  /** A control event type this build does not know. */
  metadata: { readonly type: string };
  problem: ClientProblem;
  /** Input that did not, or may not, reach the terminal (exactly-once input); see DELIVERY_NOTICE_CODES. */
  inputNotice: DeliveryNotice;
  state: { readonly state: StreamState };
}

export interface StreamCounters {
  outputFrames: number;
  outputBytes: number;
  outputApplied: number;
  outputIgnored: number;
  outputStale: number;
  gaps: number;
  snapshotsApplied: number;
  acksSent: number;
  ackedBytes: number;
  inputHeld: number;
  inputSent: number;
  inputRefused: number;
  subscribes: number;
  /** Frames a projection withheld from a host without its capability, like a gated drop. */
  projectionsWithheld: number;
  /** Frames not sent because a projection threw (each logged by the ProjectionRegistry). */
  projectionErrors: number;
}

export function emptyStreamCounters(): StreamCounters {
  return {
    outputFrames: 0,
    outputBytes: 0,
    outputApplied: 0,
    outputIgnored: 0,
    outputStale: 0,
    gaps: 0,
    snapshotsApplied: 0,
    acksSent: 0,
    ackedBytes: 0,
    inputHeld: 0,
    inputSent: 0,
    inputRefused: 0,
    subscribes: 0,
    projectionsWithheld: 0,
    projectionErrors: 0,
  };
}
