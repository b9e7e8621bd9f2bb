import type { PairingRecording, RecordedFrame } from '../../recording.js';
import { isObject } from './frame-slots.js';

/**
 * Where a host gives up on a reader that returns no credit, drops what it
 * queued and repaints (an overflow snapshot), follows its flow policy: how far
 * a stream's window grows and how much it queues past it
 * (streamWindowMaxBytes, streamQueueMaxBytes, subscriberHoldBytes). A client
 * neither chooses nor sees those; a host that tunes them takes the snapshot
 * at another seq, of the screen at that seq. So an overflow snapshot's seq is
 * not compared by value, and its text only where it was taken at the
 * reference's seq. That it comes, its cause, and the screen it leaves the
 * client with (the step's barrier, SCREEN_MISMATCH) are still judged.
 */
export function overflowSnapshotFrames(rec: PairingRecording): ReadonlySet<number> {
  const frames = new Set<number>();
  const openByClient = new Map<string, boolean>();
  for (const f of rec.frames) {
    if (f.direction !== 'hostToClient') continue;
    const client = f.client ?? 'primary';
    if (f.opcodeName === 'SnapshotStart') openByClient.set(client, isOverflowStart(f));
    if (!openByClient.get(client) || !['SnapshotStart', 'SnapshotChunk', 'SnapshotEnd'].includes(f.opcodeName)) continue;
    frames.add(f.index);
    if (f.opcodeName === 'SnapshotEnd') openByClient.delete(client);
  }
  return frames;
}

/** Overflow by its cause; a peer without snapshotCause says 'recovery', which in the overflow step is the overflow's. */
function isOverflowStart(f: RecordedFrame): boolean {
  const p = isObject(f.payload) ? f.payload : {};
  return p.cause === 'overflow' || (p.cause === undefined && p.source === 'recovery' && f.step === 'overflowRecovery');
}
