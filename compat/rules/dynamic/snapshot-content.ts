import { PAIRING_LABELS } from '../finding.js';
import type { Occurrence, PairingRecording } from '../../recording.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';
import { overflowSnapshotFrames } from './flow-policy.js';

export interface AssembledSnapshot {
  readonly occurrence: Occurrence | undefined;
  readonly ordinal: number;
  readonly text: string;
  readonly firstFrame: number;
  /** From its SnapshotStart: where in the output it was taken, and its size. */
  readonly seq: number;
  readonly cols: number;
  readonly rows: number;
  /** The screen it draws (PairingRecording.snapshotScreens), where recorded. */
  readonly screen?: string;
}

/** Host snapshots in order, each the join of its SnapshotChunk texts, numbered within its occurrence. */
export function assembledSnapshots(rec: PairingRecording): AssembledSnapshot[] {
  const out: AssembledSnapshot[] = [];
  const perOccurrence = new Map<string, number>();
  // Snapshots to two clients may interleave on the wire: each client's is assembled from its own frames.
  const openByClient = new Map<string, { occurrence: Occurrence | undefined; parts: string[]; firstFrame: number; seq: number; cols: number; rows: number }>();
  for (const f of rec.frames) {
    if (f.direction !== 'hostToClient') continue;
    const client = f.client ?? 'primary';
    const open = openByClient.get(client);
    if (f.opcodeName === 'SnapshotStart') openByClient.set(client, { occurrence: f.occurrence, parts: [], firstFrame: f.index, seq: f.seq, ...sizeOf(f.payload) });
    else if (f.opcodeName === 'SnapshotChunk' && open) open.parts.push(typeof f.payload === 'string' ? f.payload : JSON.stringify(f.payload));
    else if (f.opcodeName === 'SnapshotEnd' && open) {
      const key = open.occurrence ?? '';
      const ordinal = perOccurrence.get(key) ?? 0;
      perOccurrence.set(key, ordinal + 1);
      const screen = rec.snapshotScreens?.[out.length];
      out.push({ occurrence: open.occurrence, ordinal, text: open.parts.join(''), firstFrame: open.firstFrame, seq: open.seq, cols: open.cols, rows: open.rows, ...(screen ? { screen } : {}) });
      openByClient.delete(client);
    }
  }
  return out;
}

function sizeOf(payload: unknown): { cols: number; rows: number } {
  const { cols, rows } = (payload ?? {}) as { cols?: unknown; rows?: unknown };
  return { cols: typeof cols === 'number' ? cols : 80, rows: typeof rows === 'number' ? rows : 24 };
}

/** Where the two texts first differ, with a little context on each side, for the evidence. */
function firstDifference(before: string, after: string): { at: number; before: string; after: string } {
  let at = 0;
  while (at < before.length && at < after.length && before[at] === after[at]) at++;
  const from = Math.max(0, at - 20);
  return { at, before: before.slice(from, at + 40), after: after.slice(from, at + 40) };
}

/**
 * SNAPSHOT_CONTENT_CHANGED: the old client renders what the new host serialises.
 * Both runs drive the same deterministic terminal through the same steps, so the
 * new host's snapshot for an occurrence must carry the old host's text for it
 * (old × old); a difference is a change of content an old reader did not agree to,
 * unless both texts draw the same screen (compared cell by cell where recorded).
 */
export const snapshotContentChanged = dynamicRule({
  id: 'SNAPSHOT_CONTENT_CHANGED',
  compatibilityRule: 3,
  purpose: "The new host's snapshot text for an occurrence differs from the old host's for the same occurrence of the same deterministic journey.",
  fix: { fix: 'keep the snapshot text old clients render, or gate the new form behind a capability', docs: FIX_DOCS.gating },
  judge: (recordings) => {
    const expected = assembledSnapshots(recordings.oldOld);
    const actual = assembledSnapshots(recordings.oldClientNewHost);
    const [overflowInReference, overflowInSkew] = [overflowSnapshotFrames(recordings.oldOld), overflowSnapshotFrames(recordings.oldClientNewHost)];
    const findings = [];
    for (const ref of expected) {
      const got = actual.find((s) => s.occurrence === ref.occurrence && s.ordinal === ref.ordinal);
      if (!got || got.text === ref.text) continue; // a missing snapshot is FRAME_SEQUENCE_CHANGED's finding
      // An overflow snapshot taken at another seq shows the screen at that seq: where is the host's flow policy (flow-policy.ts).
      if (overflowInReference.has(ref.firstFrame) && overflowInSkew.has(got.firstFrame) && got.seq !== ref.seq) continue;
      // Another encoding of the same screen (an SGR spelled differently, a cursor placed another way) is not a change of content.
      if (ref.screen !== undefined && ref.screen === got.screen) continue;
      const diff = firstDifference(ref.text, got.text);
      findings.push({
        direction: PAIRING_LABELS.oldClientNewHost,
        subject: 'SnapshotChunk',
        ...(ref.occurrence ? { occurrence: ref.occurrence } : {}),
        message: `the new host's ${ref.occurrence ?? ''} snapshot #${ref.ordinal + 1} differs from the old host's from character ${diff.at}: ${JSON.stringify(diff.before)} became ${JSON.stringify(diff.after)}`,
        evidence: { before: diff.before, after: diff.after, at: diff.at, referenceFrame: ref.firstFrame, frame: got.firstFrame },
      });
    }
    return findings;
  },
});
