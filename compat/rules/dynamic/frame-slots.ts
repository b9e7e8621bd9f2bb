import type { FrameDirection, Occurrence, PairingRecording, RecordedFrame, StepName } from '../../recording.js';
import { supersededResizes } from './resize-policy.js';

/**
 * Frame occurrences, keyed the same way by every rule that compares a skew
 * with a reference run: step, snapshot occurrence (initial, reveal,
 * reconnect), opcode and event type, then order within that group. Keys are
 * never merged across occurrences, so a sibling cannot mask the one that changed.
 */
export interface Slot {
  readonly key: string;
  readonly step: StepName;
  readonly occurrence?: Occurrence;
  /** `SnapshotStart`, `Metadata[type=subscribed]`. */
  readonly label: string;
  readonly ordinal: number;
  readonly frame: RecordedFrame;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * What a recording holds in place of a payload's fields: {hex} where the
 * author's decoder refused it, {textLeftOut} for output text (record-frames.ts).
 * Nothing to compare or count field by field.
 */
export const isStandIn = (v: unknown) => isObject(v) && Object.keys(v).length === 1 && (typeof v.hex === 'string' || typeof v.textLeftOut === 'number');

export function frameLabel(f: RecordedFrame): string {
  const type = isObject(f.payload) && typeof f.payload.type === 'string' ? `[type=${f.payload.type}]` : '';
  return `${f.opcodeName}${type}`;
}

export function slotWhere(s: Pick<Slot, 'step' | 'occurrence' | 'ordinal'>): string {
  return `step ${s.step}${s.occurrence ? `, ${s.occurrence}` : ''}, #${s.ordinal + 1}`;
}

/** The frames one side wrote that `include` accepts, by occurrence key; a Resized the host's merging superseded is no occurrence (resize-policy.ts). */
export function occurrenceSlots(rec: PairingRecording, direction: FrameDirection, include: (f: RecordedFrame) => boolean): Map<string, Slot> {
  const groups = new Map<string, RecordedFrame[]>();
  const merged = supersededResizes(rec);
  for (const f of rec.frames) {
    if (f.direction !== direction || !include(f) || merged.has(f.index)) continue;
    // Per client as well: the Resized each subscriber gets is its own occurrence.
    const group = `${f.step}|${f.occurrence ?? ''}|${f.client ?? 'primary'}|${frameLabel(f)}`;
    (groups.get(group) ?? groups.set(group, []).get(group)!).push(f);
  }
  const slots = new Map<string, Slot>();
  for (const [group, frames] of groups) {
    inCanonicalOrder(frames).forEach((frame, ordinal) => {
      const key = `${group}|${ordinal}`;
      slots.set(key, { key, step: frame.step, ...(frame.occurrence ? { occurrence: frame.occurrence } : {}), label: frameLabel(frame), ordinal, frame });
    });
  }
  return slots;
}

/**
 * Snapshots of one stream taken at one seq are the same screen, and the order
 * they go out in is the host's to choose: a reveal's resume and request
 * snapshots come either way round from v0.2.0 (one serialisation answering
 * both, or two). Within such a run they are compared by cause, then with the
 * requestId last, so a cause or a requestId that changed is still a finding.
 */
function inCanonicalOrder(frames: RecordedFrame[]): RecordedFrame[] {
  const out: RecordedFrame[] = [];
  for (let start = 0; start < frames.length; ) {
    const head = frames[start]!;
    let end = start + 1;
    while (end < frames.length && head.opcodeName === 'SnapshotStart' && sameSnapshotPoint(head, frames[end]!)) end++;
    out.push(...frames.slice(start, end).sort((a, b) => snapshotOrderKey(a).localeCompare(snapshotOrderKey(b))));
    start = end;
  }
  return out;
}

const sameSnapshotPoint = (a: RecordedFrame, b: RecordedFrame) => a.connection === b.connection && a.streamId === b.streamId && a.seq === b.seq;

function snapshotOrderKey(f: RecordedFrame): string {
  const p = isObject(f.payload) ? f.payload : {};
  return `${String(p.cause ?? p.source ?? '')}|${p.requestId === undefined ? 0 : 1}`;
}

/**
 * The new build's frames toward the old build, against what the old build's
 * own counterpart publishes in old × old: the reader is the old build in both,
 * so its expectation comes from the baseline's reference run.
 */
export const OLD_READER_COMPARISONS = [
  { skew: 'oldClientNewHost', direction: 'hostToClient', writer: 'new host' },
  { skew: 'newClientOldHost', direction: 'clientToHost', writer: 'new client' },
] as const;

export const stepOk = (rec: PairingRecording, step: StepName) => rec.steps.find((s) => s.name === step)?.status === 'ok';

/**
 * The journey ran to its end: no step stalled. A skipped step does not count
 * against it: steps a baseline's peers cannot drive are skipped in every
 * pairing of the run (against v0.1.0, four of them), and whole-journey
 * comparisons must still run there.
 */
export const noStepStalled = (rec: PairingRecording) => rec.steps.every((s) => s.status !== 'stalled');
