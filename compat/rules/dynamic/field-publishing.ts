import { PAIRING_LABELS } from '../finding.js';
import { isStandIn, isObject, OLD_READER_COMPARISONS, occurrenceSlots } from './frame-slots.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';

/**
 * Fields whose keys are data, not fields: compared as present or absent only.
 * The capability echo is judged by CAPABILITY_ECHO_MISMATCH against both manifests.
 */
export const OPAQUE_FIELDS: readonly string[] = ['capabilities'];

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

/** FIELD_STOPPED_PUBLISHING: compared occurrence by occurrence, never merged across initial, reveal and reconnect. */
export const fieldStoppedPublishing = dynamicRule({
  id: 'FIELD_STOPPED_PUBLISHING',
  compatibilityRule: 3,
  purpose: 'A JSON field the old build publishes in a frame occurrence is absent from the new build’s frame for the same occurrence.',
  fix: { fix: 'keep populating the field for peers that did not negotiate its replacement', docs: FIX_DOCS.gating },
  judge: (recordings) => {
    const findings = [];
    const jsonObject = (f: { payload: unknown }) => isObject(f.payload) && !isStandIn(f.payload);
    for (const c of OLD_READER_COMPARISONS) {
      const expected = occurrenceSlots(recordings.oldOld, c.direction, jsonObject);
      const actual = occurrenceSlots(recordings[c.skew], c.direction, jsonObject);
      for (const [key, ref] of expected) {
        const got = actual.get(key);
        if (!got) continue; // a missing frame is FRAME_SEQUENCE_CHANGED's or FRAME_NO_LONGER_SENT's finding
        const now = publishedFields(got.frame.payload);
        for (const [path, value] of publishedFields(ref.frame.payload)) {
          if (now.has(path)) continue;
          findings.push({
            direction: PAIRING_LABELS[c.skew],
            subject: `${ref.label}.${path}`,
            step: ref.step,
            ...(ref.occurrence ? { occurrence: ref.occurrence } : {}),
            message: `the ${c.writer} no longer publishes ${path} in ${ref.label} (step ${ref.step}${ref.occurrence ? `, ${ref.occurrence}` : ''}, #${ref.ordinal + 1}); the old build publishes ${JSON.stringify(value)}`,
            evidence: { before: value, after: undefined, referenceFrame: ref.frame.index, frame: got.frame.index },
          });
        }
      }
    }
    return findings;
  },
});
