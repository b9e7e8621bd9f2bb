import { PAIRING_LABELS } from '../finding.js';
import type { FrameDirection, Occurrence, PairingRecording, RecordedFrame, StepName } from '../../recording.js';
import { type DynamicRule, dynamicFinding } from './types.js';

/**
 * Fields whose keys are data, not fields: compared as present or absent only.
 * The capability echo is judged by CAPABILITY_ECHO_MISMATCH against both manifests.
 */
export const OPAQUE_FIELDS: readonly string[] = ['capabilities'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The runner records undecodable payloads as {hex}: nothing to compare field by field. */
const isHexOnly = (v: Record<string, unknown>) => Object.keys(v).length === 1 && typeof v.hex === 'string';

/** Every field path a JSON payload publishes, with its value; `undefined` values count as not published. */
export function publishedFields(payload: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isObject(payload)) return out;
  for (const [k, v] of Object.entries(payload)) {
    if (v === undefined) continue;
    const path = prefix ? `${prefix}.${k}` : k;
    out.set(path, v);
    if (isObject(v) && !OPAQUE_FIELDS.includes(path)) for (const [p, x] of publishedFields(v, path)) out.set(p, x);
  }
  return out;
}

interface Slot { step: StepName; occurrence?: Occurrence; label: string; ordinal: number; frame: RecordedFrame }

/** Frames grouped by occurrence: step, snapshot occurrence, client, opcode and event type, then their order within that group. */
function occurrenceSlots(rec: PairingRecording, direction: FrameDirection): Map<string, Slot> {
  const counts = new Map<string, number>();
  const slots = new Map<string, Slot>();
  for (const f of rec.frames) {
    if (f.direction !== direction || !isObject(f.payload) || isHexOnly(f.payload)) continue;
    const type = typeof f.payload.type === 'string' ? `[type=${f.payload.type}]` : '';
    const label = `${f.opcodeName}${type}`;
    // Per client as well: the Resized each subscriber gets is its own occurrence.
    const group = `${f.step}|${f.occurrence ?? ''}|${f.client ?? 'primary'}|${label}`;
    const ordinal = counts.get(group) ?? 0;
    counts.set(group, ordinal + 1);
    slots.set(`${group}|${ordinal}`, { step: f.step, ...(f.occurrence ? { occurrence: f.occurrence } : {}), label, ordinal, frame: f });
  }
  return slots;
}

/**
 * The new build's frames toward the old build, against what the old build's own
 * counterpart publishes in old × old: the reader is the old build in both, so
 * its expectation comes from the baseline's reference run.
 */
const COMPARISONS = [
  { skew: 'oldClientNewHost', direction: 'hostToClient', writer: 'new host' },
  { skew: 'newClientOldHost', direction: 'clientToHost', writer: 'new client' },
] as const;

/** FIELD_STOPPED_PUBLISHING: compared occurrence by occurrence, never merged across initial, reveal and reconnect. */
export const fieldStoppedPublishing: DynamicRule = (recordings) => {
  const findings = [];
  for (const c of COMPARISONS) {
    const expected = occurrenceSlots(recordings.oldOld, c.direction);
    const actual = occurrenceSlots(recordings[c.skew], c.direction);
    for (const [key, ref] of expected) {
      const got = actual.get(key);
      if (!got) continue; // a missing frame is FRAME_SEQUENCE_CHANGED's finding
      const now = publishedFields(got.frame.payload);
      for (const [path, value] of publishedFields(ref.frame.payload)) {
        if (now.has(path)) continue;
        findings.push(dynamicFinding({
          ruleId: 'FIELD_STOPPED_PUBLISHING',
          direction: PAIRING_LABELS[c.skew],
          subject: `${ref.label}.${path}`,
          step: ref.step,
          ...(ref.occurrence ? { occurrence: ref.occurrence } : {}),
          message: `the ${c.writer} no longer publishes ${path} in ${ref.label} (step ${ref.step}${ref.occurrence ? `, ${ref.occurrence}` : ''}, #${ref.ordinal + 1}); the old build publishes ${JSON.stringify(value)}`,
          evidence: { before: value, after: undefined, referenceFrame: ref.frame.index, frame: got.frame.index },
        }));
      }
    }
  }
  return findings;
};
