import type { PairingRecording } from '../../recording.js';

/** What a client sends that asks the host for a size. */
const SIZE_REQUESTS: ReadonlySet<string> = new Set(['Resize', 'ClaimViewport', 'Subscribe']);

/**
 * A host applies sizes asked for faster than its resize interval
 * (minResizeIntervalMs) by merging them, the last one winning; v0.1.0's host
 * answered each one. How many Resized a burst of requests brings a client, and
 * which sizes short of the last they carry, is that policy, not a change an
 * old client can notice: it needs the size it ends at. So a Resized that a
 * later one in the same step supersedes, with no size asked for by any client
 * in between, is left out of the occurrence-by-occurrence comparison. The last
 * of a burst is still compared, by presence and value.
 */
export function supersededResizes(rec: PairingRecording): ReadonlySet<number> {
  const superseded = new Set<number>();
  const pending = new Map<string, number>();
  for (const f of rec.frames) {
    if (f.direction === 'clientToHost' && SIZE_REQUESTS.has(f.opcodeName) && f.fault !== 'dropped') pending.clear();
    if (f.direction !== 'hostToClient' || f.opcodeName !== 'Resized') continue;
    const stream = `${f.step}|${f.client ?? 'primary'}|${f.connection ?? 0}|${f.streamId}`;
    const earlier = pending.get(stream);
    if (earlier !== undefined) superseded.add(earlier);
    pending.set(stream, f.index);
  }
  return superseded;
}
