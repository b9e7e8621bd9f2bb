import type { PairingRecording, RecordedFrame } from '../recording.js';
import { type BehaviourConditionName, type BehaviourFrame, type BehaviourState, framesFrom, pairKey } from './behaviour-table.js';

/** What one walk reached: (state, frame) pair keys and condition names. */
export interface BehaviourReached {
  readonly pairs: Set<string>;
  readonly conditions: Set<BehaviourConditionName>;
}

/** The limit codes a host refuses a request with; a request within the limit is accepted later on the same connection. */
const LIMIT_CODES = ['TOO_MANY_STREAMS', 'TERMINALS_PER_CONNECTION_LIMIT', 'TERMINALS_PER_SERVER_LIMIT', 'RESIZE_TOO_LARGE'];
/** A text that ends inside an escape sequence: CSI parameters, or an OSC string not yet terminated. */
const OPEN_ESCAPE_AT_END = /\x1b(\[[0-9;:?<>=!]*|\][^\x07\x1b]*)?$/;
/** A text this long fills an Input frame that is part of a larger write. */
const SEVERAL_FRAMES_MIN_CHARS = 4096;

const KNOWN_FRAMES = new Set([...framesFrom('clientToHost'), ...framesFrom('hostToClient')]);
const frameOf = (f: RecordedFrame): BehaviourFrame => (f.opcodeName === 'Metadata' ? `Metadata:${eventOf(f)}` : f.opcodeName);
const eventOf = (f: RecordedFrame) => (f.payload as { type?: unknown } | null)?.type;
const json = (f: RecordedFrame) => (f.payload && typeof f.payload === 'object' ? (f.payload as Record<string, unknown>) : {});
const clientOf = (f: RecordedFrame) => f.client ?? 'primary';
const inputAckStatus = (f: RecordedFrame) => json(f).status;

/** Per client and stream id, across that client's connections: what its input and its streams went through. */
interface StreamTrack {
  state: BehaviourState;
  connection: number;
  /** Sequence numbers sent on each connection (dropped or not), for resends on a later one. */
  sentOn: Map<number, Set<number>>;
  /** Sequence numbers that reached the host. */
  forwarded: Set<number>;
  highestForwarded: number;
  highestApplied: number;
  /** An Input was lost on the way since the host's last InputAck. */
  lostSinceAck: boolean;
  /** Sequence numbers resent since the host last asked for a resend, on this connection. */
  forwardedSinceResendAsked: Set<number>;
  requestOpen: boolean;
  chunks: number;
  /** The last chunk ended inside an escape sequence. */
  openEscape?: boolean;
  terminal?: string;
  instanceId?: string;
  /** The capabilities the host echoed for this stream: a pause is one only where outputPause was. */
  negotiated: Record<string, unknown>;
}

/**
 * Classifies one walk's frames against the behaviour table: each frame is
 * counted in the state its stream was in when it crossed (a transition counts
 * in the state it leaves), and each condition from the frames around it.
 * Frames the proxy injected count: they stand in for a peer that sends them.
 */
export function behaviourReached(rec: PairingRecording): BehaviourReached {
  const pairs = new Set<string>();
  const conditions = new Set<BehaviourConditionName>();
  const tracks = new Map<string, StreamTrack>();
  const lastForwarded = lastForwardedIndexByConnection(rec.frames);
  const limitRefusedOn = new Set<number>();
  /** The instance of each terminal a client last subscribed to, by `client/terminal`, and whether its program exited. */
  const instances = new Map<string, { connection: number; instanceId?: string; exited: boolean }>();
  /** Connections with a Resize the host has not answered with a Resized yet. */
  const resizePendingOn = new Set<number>();
  let previous: RecordedFrame | undefined;

  for (const f of rec.frames) {
    const key = `${clientOf(f)}/${f.streamId}`;
    const fromClient = f.direction === 'clientToHost';
    const frame = frameOf(f);
    // A frame no build's table names (the proxy's garbage) is no behaviour of the protocol.
    if (!KNOWN_FRAMES.has(frame)) continue;
    if (f.opcodeName === 'Metadata' && eventOf(f) === 'subscribed') {
      const was = tracks.get(key);
      const p = json(f);
      const now: StreamTrack = was ?? { state: 'live', connection: f.connection ?? 1, sentOn: new Map(), forwarded: new Set(), highestForwarded: 0, highestApplied: 0, lostSinceAck: false, forwardedSinceResendAsked: new Set(), requestOpen: false, chunks: 0, negotiated: {} };
      if (was && was.connection !== f.connection && was.terminal === p.terminal) {
        const sameInstance = was.instanceId === undefined || p.instanceId === undefined || was.instanceId === p.instanceId;
        conditions.add(sameInstance ? 'link.reconnectSameInstance' : 'link.reconnectNewInstance');
        if (was.state === 'paused') conditions.add('link.pausedAcrossReconnect');
      }
      // The same client back on the same connection, to a terminal it had left: the one it left, or a new one.
      const left = instances.get(`${clientOf(f)}/${String(p.terminal)}`);
      if (left && left.connection === f.connection && left.instanceId !== undefined && p.instanceId !== undefined && !tracks.has(key)) {
        if (left.instanceId === p.instanceId) conditions.add('lifetime.foundAgain');
        else conditions.add(left.exited ? 'lifetime.newAfterExit' : 'lifetime.expired');
      }
      instances.set(`${clientOf(f)}/${String(p.terminal)}`, { connection: f.connection ?? 1, instanceId: typeof p.instanceId === 'string' ? p.instanceId : undefined, exited: false });
      if (was && was.terminal !== p.terminal) Object.assign(now, { sentOn: new Map(), forwarded: new Set(), highestForwarded: 0, highestApplied: 0 });
      Object.assign(now, { state: 'live', connection: f.connection ?? 1, terminal: p.terminal, instanceId: p.instanceId, requestOpen: false, negotiated: p.capabilities && typeof p.capabilities === 'object' ? p.capabilities : {} });
      tracks.set(key, now);
      if (f.connection !== undefined && limitRefusedOn.has(f.connection)) conditions.add('limit.overThenUnder');
    }
    if (f.streamId === 0) pairs.add(pairKey('link', frame));
    const track = tracks.get(key);
    if (track?.terminal !== undefined && f.opcodeName === 'Metadata' && eventOf(f) === 'exit') {
      const instance = instances.get(`${clientOf(f)}/${track.terminal}`);
      if (instance && instance.instanceId === track.instanceId) instance.exited = true;
    }

    if (f.opcodeName === 'Error' && f.connection !== undefined && LIMIT_CODES.some((c) => typeof f.payload === 'string' && f.payload.startsWith(`${c}:`))) limitRefusedOn.add(f.connection);
    if (f.opcodeName === 'Input' && fromClient && f.seq === 0 && !f.fault) conditions.add('input.unsequenced');
    if (f.opcodeName === 'Input' && previous?.opcodeName === 'Input' && previous.connection === f.connection && !f.fault && !previous.fault && [f, previous].every((x) => typeof x.payload === 'string' && x.payload.length >= SEVERAL_FRAMES_MIN_CHARS)) conditions.add('input.severalFrames');
    if (f.opcodeName === 'Ack' && !f.fault) conditions.add('credit.returned');
    if (f.opcodeName === 'Resize' && f.connection !== undefined) {
      if (resizePendingOn.has(f.connection)) conditions.add('resize.merged');
      resizePendingOn.add(f.connection);
    }
    if ((f.opcodeName === 'Resized' || f.opcodeName === 'Error') && f.connection !== undefined) resizePendingOn.delete(f.connection);
    if (f.opcodeName === 'SnapshotStart' && [json(f).cause, json(f).source].includes('overflow')) conditions.add('credit.overflow');
    if (f.opcodeName === 'SnapshotStart' && json(f).requestId !== undefined) conditions.add('snapshot.answersRequest');
    if (!track || f.streamId === 0) {
      previous = fromClient ? f : previous;
      continue;
    }
    if (f.connection !== undefined && f.connection !== track.connection && f.opcodeName !== 'Metadata') {
      // A frame of a connection the stream has not been subscribed on yet (a resend racing the subscribe): no state of its own.
      if (fromClient && f.opcodeName === 'Input') trackInput(f, track, conditions);
      previous = fromClient ? f : previous;
      continue;
    }
    const silent = f.fault === 'dropped' && f.index > (lastForwarded.get(f.connection ?? 1) ?? -1);
    pairs.add(pairKey(silent ? 'silent' : track.state, frame));
    if (silent && f.connection !== undefined && rec.frames.some((g) => clientOf(g) === clientOf(f) && (g.connection ?? 1) > f.connection!)) conditions.add('link.silentThenDead');

    if (fromClient && f.opcodeName === 'Input') trackInput(f, track, conditions);
    if (f.opcodeName === 'InputAck') {
      const status = inputAckStatus(f);
      if (status === 'applied') {
        conditions.add('input.inOrder');
        track.highestApplied = Math.max(track.highestApplied, f.seq);
      }
      if (status === 'deliveryUnknown') conditions.add('input.unknown');
      if (status === 'resend') {
        if (!track.lostSinceAck) conditions.add('input.refused');
        track.forwardedSinceResendAsked.clear();
      }
      track.lostSinceAck = false;
    }
    if (f.opcodeName === 'SnapshotRequest') {
      if (track.requestOpen) conditions.add('snapshot.requestsMerged');
      track.requestOpen = true;
    }
    if (f.opcodeName === 'SnapshotStart') {
      if (json(f).requestId !== undefined) track.requestOpen = false;
      track.chunks = 0;
    }
    if (f.opcodeName === 'SnapshotChunk') {
      if (track.chunks > 0 && track.openEscape) conditions.add('snapshot.chunkSplitsEscape');
      track.chunks++;
      track.openEscape = typeof f.payload === 'string' && OPEN_ESCAPE_AT_END.test(f.payload);
    }
    if (f.opcodeName === 'SnapshotEnd') conditions.add(track.chunks > 1 ? 'snapshot.severalChunks' : 'snapshot.oneChunk');
    if (!silent) track.state = stateAfter(f, track);
    previous = fromClient ? f : previous;
  }
  if ((rec.liveness ?? []).some((l) => l.answerer === 'client' && l.outcome === 'echoed') && (rec.liveness ?? []).some((l) => l.answerer === 'host' && l.outcome === 'echoed')) conditions.add('liveness.pingAnswered');
  return { pairs, conditions };
}

/** The state a stream is in after `f` crossed in `state`. */
function stateAfter(f: RecordedFrame, track: StreamTrack): BehaviourState {
  const { state } = track;
  if (f.opcodeName === 'Unsubscribe') return 'unsubscribed';
  if (state === 'unsubscribed') return state;
  if (f.opcodeName === 'Metadata' && eventOf(f) === 'exit') return 'exited';
  if (state === 'exited') return state;
  if (f.opcodeName === 'SetOutputPaused' && track.negotiated.outputPause) return json(f).paused === true ? 'paused' : 'live';
  return state;
}

/** The input conditions one sequenced Input shows. */
function trackInput(f: RecordedFrame, track: StreamTrack, conditions: Set<BehaviourConditionName>): void {
  if (f.seq <= 0) return;
  const connection = f.connection ?? 1;
  const sentBefore = [...track.sentOn].some(([c, seqs]) => c < connection && seqs.has(f.seq));
  if (sentBefore && !f.fault) conditions.add('input.acrossReconnect');
  if (!track.sentOn.has(connection)) track.sentOn.set(connection, new Set());
  track.sentOn.get(connection)!.add(f.seq);
  if (f.fault === 'dropped') {
    track.lostSinceAck = true;
    return;
  }
  if (f.seq > track.highestForwarded + 1 && track.highestForwarded > 0) conditions.add('input.gapped');
  if (f.seq <= track.highestApplied || (f.fault === 'injected' && track.forwarded.has(f.seq))) conditions.add('input.duplicated');
  if (!f.fault && track.forwardedSinceResendAsked.has(f.seq) && connection === track.connection) conditions.add('input.stalled');
  track.forwarded.add(f.seq);
  track.forwardedSinceResendAsked.add(f.seq);
  track.highestForwarded = Math.max(track.highestForwarded, f.seq);
}

/** The index of the last frame each connection carried that was not dropped: drops after it went into a silent link. */
function lastForwardedIndexByConnection(frames: readonly RecordedFrame[]): Map<number, number> {
  const last = new Map<number, number>();
  for (const f of frames) if (f.fault !== 'dropped') last.set(f.connection ?? 1, f.index);
  return last;
}
