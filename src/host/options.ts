import { DEFAULT_JSON_LIMITS, type JsonLimits } from '../codec/json-limits.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Every limit and tunable of the reference host, in one place. */
export interface HostLimits {
  /** Largest SnapshotChunk payload, in UTF-8 bytes (never split inside a code point). Default 48 KiB. */
  readonly snapshotChunkBytes: number;
  /** Largest Output payload; bigger terminal output is split across frames. Default 64 KiB. */
  readonly outputFrameBytes: number;
  /** Unacked Output bytes a stream may have in flight at first (ackOutput streams). Default 512 KiB. */
  readonly streamWindowInitialBytes: number;
  /** The stream window doubles, up to this, each time an Ack frees a stream that was blocked. Default 2 MiB. */
  readonly streamWindowMaxBytes: number;
  /** Unacked Output bytes a connection may have in flight at first, over all its ackOutput streams. Default 2 MiB. */
  readonly connectionWindowInitialBytes: number;
  /** The connection window doubles up to this, like the stream window. Default 8 MiB. */
  readonly connectionWindowMaxBytes: number;
  /** Output a stream may queue past its window; beyond it the queue is dropped for a recovery snapshot. Default 4 MiB. */
  readonly streamQueueMaxBytes: number;
  /** Unsubscribed stream ids a connection remembers, so late frames get NOT_SUBSCRIBED. Default 1024. */
  readonly rememberedClosedStreams: number;
  /** Scrollback lines in the host's screen model (and its snapshots). Default 1000. */
  readonly scrollbackLines: number;
  /** Size of a terminal whose backend does not say. Default 80. */
  readonly defaultCols: number;
  /** Default 24. */
  readonly defaultRows: number;
  /** JSON payload limits for received frames. Default DEFAULT_JSON_LIMITS (8 MiB, 256 Ki tokens, depth 32). */
  readonly json: JsonLimits;
}

export const DEFAULT_HOST_OPTIONS: HostLimits = Object.freeze({
  snapshotChunkBytes: 48 * KiB,
  outputFrameBytes: 64 * KiB,
  streamWindowInitialBytes: 512 * KiB,
  streamWindowMaxBytes: 2 * MiB,
  connectionWindowInitialBytes: 2 * MiB,
  connectionWindowMaxBytes: 8 * MiB,
  streamQueueMaxBytes: 4 * MiB,
  rememberedClosedStreams: 1024,
  scrollbackLines: 1000,
  defaultCols: 80,
  defaultRows: 24,
  json: DEFAULT_JSON_LIMITS,
});

/** Error codes the host puts in Error frames ("CODE: message"); permanent once shipped. */
export const HOST_ERROR_CODES = {
  BAD_FRAME: 'the frame or its payload could not be decoded; the message is the decoder\'s',
  UNKNOWN_OPCODE: 'an opcode this host does not know; the message names the number',
  WRONG_DIRECTION: 'a host-to-client opcode arrived from the client',
  TERMINAL_NOT_FOUND: 'Subscribe named a terminal the host does not have',
  STREAM_NOT_OWNED: 'a frame on a stream this connection never subscribed',
  STREAM_IN_USE: 'Subscribe chose a stream id this connection already uses',
  NOT_SUBSCRIBED: 'a frame on a stream this connection has unsubscribed',
  UNGATED_FRAME: 'a gated frame from a stream that did not negotiate its capability; ignored',
  WRITE_UNAVAILABLE: 'the terminal refuses writes (it exited); for streams without writeUnavailable',
  TEXT_MESSAGE: 'a WebSocket text message; frames are binary messages (sent by the WebSocket server)',
  INTERNAL_ERROR: 'the host failed handling a frame; the connection stays usable',
} as const;

export type HostErrorCode = keyof typeof HOST_ERROR_CODES;

/** Counters a test or an operator reads; they only grow. */
export interface HostCounters {
  badFrames: number;
  unknownOpcodes: number;
  ungatedFrames: number;
  errorsSent: number;
  internalErrors: number;
  /** Output bytes dropped from overflowing queues (replaced by recovery snapshots). */
  droppedOutputBytes: number;
  recoverySnapshots: number;
  snapshotsSent: number;
  /** Frames a projection withheld from a peer without its capability, like a gated drop. */
  projectionsWithheld: number;
  /** Frames not sent because a projection threw (each logged by the ProjectionRegistry). */
  projectionErrors: number;
}

export function newCounters(): HostCounters {
  return { badFrames: 0, unknownOpcodes: 0, ungatedFrames: 0, errorsSent: 0, internalErrors: 0, droppedOutputBytes: 0, recoverySnapshots: 0, snapshotsSent: 0, projectionsWithheld: 0, projectionErrors: 0 };
}
