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
  /** Output a stream may queue past its window; beyond it the queue is dropped for a recovery snapshot, so only a subscriber slower than another overflows (see subscriberHoldBytes). Default 4 MiB. */
  readonly streamQueueMaxBytes: number;
  /** While every subscriber of a terminal has more than this queued past its window (at most half of streamQueueMaxBytes), the terminal is not read: its program waits, as on a slow terminal. Reading resumes when one is down to half of it. Output queued here is output a key's answer waits behind. Default 64 KiB. */
  readonly subscriberHoldBytes: number;
  /** Unsubscribed stream ids a connection remembers, so late frames get NOT_SUBSCRIBED. Default 1024. */
  readonly rememberedClosedStreams: number;
  /** Exits of terminal instances the host remembers, so a client that was away when its shell exited learns the exit on its return (outputResume). Default 1024. */
  readonly rememberedExits: number;
  /** Scrollback lines in the host's screen model (and its snapshots). Default 1000. */
  readonly scrollbackLines: number;
  /** Size of a terminal whose backend does not say. Default 80. */
  readonly defaultCols: number;
  /** Default 24. */
  readonly defaultRows: number;
  /** JSON payload limits for received frames. Default DEFAULT_JSON_LIMITS (8 MiB, 256 Ki tokens, depth 32). */
  readonly json: JsonLimits;
  /** Widest terminal a Subscribe viewport, Resize or ClaimViewport may ask for (RESIZE_TOO_LARGE past it). Default 2000. */
  readonly maxCols: number;
  /** Tallest terminal a peer may ask for (RESIZE_TOO_LARGE past it). Default 1000. */
  readonly maxRows: number;
  /** Largest scrollbackLines this host accepts in its own options (the runtime refuses to start past it). Default 10000. */
  readonly maxScrollbackLines: number;
  /** Memory budget of one screen model, in cells: cols × (rows + scrollbackLines) (RESIZE_TOO_LARGE past it). Default 2,000,000. */
  readonly maxScreenCells: number;
  /** Memory budget of all screens on the host together, in cells (the sum of maxScreenCells' measure over running terminals): a larger size past it is RESIZE_TOO_LARGE, a new terminal TERMINALS_PER_SERVER_LIMIT. Default 16,000,000. */
  readonly maxTotalScreenCells: number;
  /** Streams one connection may have subscribed at once (TOO_MANY_STREAMS past it). Default 64. */
  readonly maxStreamsPerConnection: number;
  /** Bytes buffered on a link above which the host stops feeding it: output is dropped for a recovery snapshot, Error replies are dropped. Default 1 MiB. */
  readonly linkSoftBufferedBytes: number;
  /** Bytes buffered on a link past which it is closed (1008 LINK_BUFFER_OVERFLOW). Default 8 MiB. */
  readonly linkHardBufferedBytes: number;
  /** A link that stays above linkSoftBufferedBytes this long is closed as not reading (1008 LINK_DRAIN_TIMEOUT). Default 10000 ms. */
  readonly linkDrainDeadlineMs: number;
  /** How often a congested link is checked for draining (to resume it, or to close it at the deadline). Default 50 ms. */
  readonly linkDrainCheckMs: number;
  /** Error replies a connection may provoke per second, as a bucket of this many refilled each second (1008 ERROR_RATE past it). Default 100. */
  readonly maxErrorRepliesPerSecond: number;
  /** Snapshots a connection may ask for per second, bucketed like Error replies: a SnapshotRequest or a resume past it closes the connection (1008 SNAPSHOT_RATE); a Subscribe past it waits for its turn. Default 20. */
  readonly maxSnapshotRequestsPerSecond: number;
  /** Snapshot bytes a connection may be sent per second, bucketed, whatever asked for them (Subscribe, SnapshotRequest, resume, recovery): a Subscribe waits for its turn while the connection's bucket is in debt, so churning Subscribes on a large screen paces that connection alone. Default 32 MiB. */
  readonly maxSnapshotBytesPerSecond: number;
  /** Snapshot bytes all connections together may be sent per second: each connection that was sent snapshots in the last 5 s gets an even share (never more than maxSnapshotBytesPerSecond), and its Subscribes wait while it is in debt of its share. A newcomer asking for a small snapshot is never held. Default 64 MiB. */
  readonly maxTotalSnapshotBytesPerSecond: number;
  /** Longest terminal title published (OSC 0/2), in UTF-8 bytes; a longer one is cut at a code point boundary. A program can print any title: a `cat` of a binary file can set one of megabytes. Default 4 KiB. */
  readonly maxTitleBytes: number;
  /** Input queued toward one terminal whose program is not reading it; Input past it is not written (WRITE_UNAVAILABLE, or a resend request for exactly-once input) until the program reads. Default 1 MiB. */
  readonly maxQueuedInputBytes: number;
  /** A terminal's size changes at most once per this interval; sizes asked for sooner are coalesced, the last one winning, and applied at its end (Resize, ClaimViewport, a Subscribe viewport). Default 50 ms. */
  readonly minResizeIntervalMs: number;
  /** Running terminals on this host. A Subscribe that would start one more first ends the longest-detached terminal of the holder running the most, if it runs at least two more than the subscriber's (TERMINAL_EVICTED in the log); else it gets TERMINALS_PER_SERVER_LIMIT. Default 64. */
  readonly maxTerminals: number;
  /** Running terminals one connection started, or its network when the transport names it (see HostRuntime.accept): a terminal counts until it ends, across reconnects; one more gets TERMINALS_PER_CONNECTION_LIMIT. Default 16. */
  readonly maxTerminalsPerConnection: number;
  /** Terminals the host starts per second, all connections together, in bursts of a quarter second's worth: a Subscribe that would start one past it waits for its turn, its connection not read meanwhile; connections waiting take turns. Not refused. Default 20. */
  readonly maxTerminalStartsPerSecond: number;
  /** A terminal with no subscriber for this long is ended (its name then starts a new one). Default 1 hour. */
  readonly detachedTerminalIdleMs: number;
  /** On close, a PTY child still running this long after SIGHUP gets SIGKILL. Default 500 ms. */
  readonly terminalKillGraceMs: number;
  /** Output handed to the screens of all terminals together and not yet parsed, detached ones included: each running terminal may hold an even share (never under outputFrameBytes), and one past its share is not read until its screen catches up, as at screenBacklogBytes. Default 64 MiB. */
  readonly maxTotalScreenBacklogBytes: number;
  /** Longest stretch one terminal's screen is parsed before the screen thread serves the next terminal with output and the requests waiting (another terminal's request waits at most this plus one piece or one row of a snapshot); a snapshot is serialized in the same slices, a few rows each, while its terminal's parse waits. Default 4 ms. */
  readonly screenParseSliceMs: number;
  /** Parse work a terminal's screen may have queued, in ms at the pace its output has been parsed lately; past it the terminal is not read (its program waits, as at screenBacklogBytes) until it is down to half, and the host logs SCREEN_BEHIND. Bounds what its own subscribers' snapshots wait when its output costs more per byte than screenBacklogBytes assumes. Default 2000 ms. */
  readonly maxScreenBacklogMs: number;
  /** OSC 8 hyperlinks one screen model remembers (about 3 KB each in xterm); past it the oldest is forgotten before a new one is registered, and its cells snapshot as plain text. Default 1024. */
  readonly maxScreenLinks: number;
  /** Output handed to a terminal's screen and not yet parsed; past it the terminal is not read until its screen catches up. Default 8 MiB. */
  readonly screenBacklogBytes: number;
  /** Output a terminal keeps after it was sent, so a client that lost its link resumes where it was instead of being repainted (outputResume); a resume point older than this gets a snapshot and `subscribed.resume` 'beyondHistory'. Default 1 MiB. */
  readonly outputHistoryBytes: number;
  /** The output history of all terminals together, detached ones included: each running terminal keeps at most an even share (and at most outputHistoryBytes). Default 64 MiB. */
  readonly maxTotalOutputHistoryBytes: number;
  /** A terminal not read because every subscriber is behind (see streamQueueMaxBytes) is held at most this long without one catching up; then it is read again, and its subscribers that still do not read overflow into recovery snapshots. Default 10 s. */
  readonly maxSubscriberHoldMs: number;
}

export const DEFAULT_HOST_OPTIONS: HostLimits = Object.freeze({
  snapshotChunkBytes: 48 * KiB,
  outputFrameBytes: 64 * KiB,
  screenBacklogBytes: 8 * MiB,
  maxScreenLinks: 1024,
  screenParseSliceMs: 4,
  maxScreenBacklogMs: 2000,
  maxTotalScreenBacklogBytes: 64 * MiB,
  streamWindowInitialBytes: 512 * KiB,
  streamWindowMaxBytes: 2 * MiB,
  connectionWindowInitialBytes: 2 * MiB,
  connectionWindowMaxBytes: 8 * MiB,
  streamQueueMaxBytes: 4 * MiB,
  subscriberHoldBytes: 64 * KiB,
  rememberedClosedStreams: 1024,
  rememberedExits: 1024,
  scrollbackLines: 1000,
  defaultCols: 80,
  defaultRows: 24,
  json: DEFAULT_JSON_LIMITS,
  maxCols: 2000,
  maxRows: 1000,
  maxScrollbackLines: 10_000,
  maxScreenCells: 2_000_000,
  maxTotalScreenCells: 16_000_000,
  maxStreamsPerConnection: 64,
  linkSoftBufferedBytes: 1 * MiB,
  linkHardBufferedBytes: 8 * MiB,
  linkDrainDeadlineMs: 10_000,
  linkDrainCheckMs: 50,
  maxErrorRepliesPerSecond: 100,
  maxSnapshotRequestsPerSecond: 20,
  maxSnapshotBytesPerSecond: 32 * MiB,
  maxTotalSnapshotBytesPerSecond: 64 * MiB,
  maxTitleBytes: 4 * KiB,
  maxQueuedInputBytes: 1 * MiB,
  minResizeIntervalMs: 50,
  maxTerminals: 64,
  maxTerminalsPerConnection: 16,
  maxTerminalStartsPerSecond: 20,
  detachedTerminalIdleMs: 60 * 60 * 1000,
  terminalKillGraceMs: 500,
  maxSubscriberHoldMs: 10_000,
  outputHistoryBytes: 1 * MiB,
  maxTotalOutputHistoryBytes: 64 * MiB,
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
  RESIZE_TOO_LARGE: 'a Subscribe viewport, Resize or ClaimViewport past maxCols x maxRows, maxScreenCells or maxTotalScreenCells; not applied (a Subscribe is refused)',
  TOO_MANY_STREAMS: 'a Subscribe past maxStreamsPerConnection; refused',
  TERMINALS_PER_SERVER_LIMIT: 'Subscribe would start a terminal past maxTerminals or maxTotalScreenCells; the message names both numbers',
  TERMINALS_PER_CONNECTION_LIMIT: 'Subscribe would start a terminal past maxTerminalsPerConnection; the message names both numbers',
} as const;

export type HostErrorCode = keyof typeof HOST_ERROR_CODES;

/** WebSocket close code for every limit close: 1008, policy violation. */
export const CLOSE_POLICY_VIOLATION = 1008;

/** Why the host closed a connection for a limit; the close reason is "CODE: message". Permanent once shipped. */
export const HOST_CLOSE_REASONS = {
  LINK_BUFFER_OVERFLOW: 'more than linkHardBufferedBytes waited to be sent to the peer',
  LINK_DRAIN_TIMEOUT: 'the link stayed above linkSoftBufferedBytes for linkDrainDeadlineMs: the peer is not reading',
  ERROR_RATE: 'the peer provoked more Error replies than maxErrorRepliesPerSecond',
  SNAPSHOT_RATE: 'the peer sent more SnapshotRequests than maxSnapshotRequestsPerSecond',
} as const;

export type HostCloseReason = keyof typeof HOST_CLOSE_REASONS;

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
  /** Subscribes whose snapshot waited for its turn under maxSnapshotRequestsPerSecond. */
  subscribesPaced: number;
  /** Subscribes that resumed an instance that had exited meanwhile, answered with its exit (rememberedExits). */
  exitsAnswered: number;
  /** Detached terminals of the heaviest holder ended to make room for a newcomer at maxTerminals or maxTotalScreenCells (TERMINAL_EVICTED in the log). */
  terminalsEvicted: number;
  /** Output bytes not sent because their link was above linkSoftBufferedBytes (a recovery snapshot follows the drain). */
  congestedOutputBytes: number;
  /** Error replies not sent because their link was congested. */
  congestedErrorsDropped: number;
  /** Snapshot replies coalesced into one because their link was congested. */
  coalescedSnapshots: number;
  /** Requests refused for a limit (RESIZE_TOO_LARGE, TOO_MANY_STREAMS). */
  limitRefusals: number;
  /** Connections closed for a limit, by reason. */
  limitCloses: Partial<Record<HostCloseReason, number>>;
  /** Frames a projection withheld from a peer without its capability, like a gated drop. */
  projectionsWithheld: number;
  /** Frames not sent because a projection threw (each logged by the ProjectionRegistry). */
  projectionErrors: number;
}

export function newCounters(): HostCounters {
  return {
    badFrames: 0,
    unknownOpcodes: 0,
    ungatedFrames: 0,
    errorsSent: 0,
    internalErrors: 0,
    droppedOutputBytes: 0,
    recoverySnapshots: 0,
    snapshotsSent: 0,
    subscribesPaced: 0,
    exitsAnswered: 0,
    terminalsEvicted: 0,
    congestedOutputBytes: 0,
    congestedErrorsDropped: 0,
    coalescedSnapshots: 0,
    limitRefusals: 0,
    limitCloses: {},
    projectionsWithheld: 0,
    projectionErrors: 0,
  };
}
