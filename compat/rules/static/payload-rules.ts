import type { ManifestOpcode, WireManifest } from '../../../src/manifest/manifest-schema.js';
import { type Finding, newWriterToOldReader, oldWriterToNewReader, writerOf } from '../finding.js';
import { schemaFields } from '../../../src/manifest/schema-fields.js';
import { FIX_DOCS, type FindingDraft, staticRule } from '../rule-spec.js';

/** Opcodes whose JSON payload can be compared field by field: same number, same name, json both times. */
function jsonPairs(baseline: WireManifest, current: WireManifest): Array<[ManifestOpcode, ManifestOpcode]> {
  const now = new Map(current.opcodes.map((o) => [o.code, o]));
  const pairs: Array<[ManifestOpcode, ManifestOpcode]> = [];
  for (const before of baseline.opcodes) {
    const after = now.get(before.code);
    if (after && after.name === before.name && before.payloadKind === 'json' && after.payloadKind === 'json') pairs.push([before, after]);
  }
  return pairs;
}

/** PAYLOAD_FIELD_REMOVED: the new writer no longer declares a field an old reader may read. */
export const payloadFieldRemoved = staticRule({
  id: 'PAYLOAD_FIELD_REMOVED',
  compatibilityRule: 3,
  purpose: 'A payload field the baseline declared is gone, so an old reader of that field no longer gets it.',
  fix: { fix: 'keep publishing the field, or gate its removal behind a capability old peers do not negotiate', docs: FIX_DOCS.gating },
  judge: (baseline, current) => {
    const findings: FindingDraft[] = [];
    for (const [before, after] of jsonPairs(baseline, current)) {
      const then = schemaFields(before.schema);
      const now = schemaFields(after.schema);
      for (const field of then.values()) {
        // Report only the outermost removed field; its children go with it.
        if (now.has(field.path) || (field.parent !== '' && !now.has(field.parent))) continue;
        findings.push({
          direction: newWriterToOldReader(writerOf(before.direction)),
          subject: `${before.name}.${field.path}`,
          message: `${before.name} no longer declares ${field.path} (${field.required ? 'required' : 'optional'} in the baseline)`,
          evidence: { before: field.required ? 'required' : 'optional', after: 'absent' },
        });
      }
    }
    return findings;
  },
});

/** PAYLOAD_FIELD_MADE_REQUIRED: the new reader refuses what old writers send without the field. */
export const payloadFieldMadeRequired = staticRule({
  id: 'PAYLOAD_FIELD_MADE_REQUIRED',
  compatibilityRule: 1,
  purpose: 'A field optional in the baseline, or absent from it, is now required, so the new reader refuses frames from old writers.',
  fix: { fix: 'keep the field `.optional()` in the reader: peers that predate it never send it', docs: FIX_DOCS.threeRules },
  judge: (baseline, current) => {
    const findings: FindingDraft[] = [];
    for (const [before, after] of jsonPairs(baseline, current)) {
      const then = schemaFields(before.schema);
      const now = schemaFields(after.schema);
      for (const field of now.values()) {
        if (!field.required) continue;
        const old = then.get(field.path);
        if (old?.required) continue;
        // A required child of a parent that is itself new is judged at the parent.
        if (!old && field.parent !== '' && !then.has(field.parent)) continue;
        findings.push({
          direction: oldWriterToNewReader(writerOf(after.direction)),
          subject: `${after.name}.${field.path}`,
          message: `${after.name}.${field.path} is required now but ${old ? 'optional' : 'absent'} in the baseline; old writers omit it`,
          evidence: { before: old ? 'optional' : 'absent', after: 'required' },
        });
      }
    }
    return findings;
  },
});

/** Whether a field of type `types` accepts every value of type `t` (an integer is a number). */
const admits = (types: readonly string[], t: string) => types.includes(t) || (t === 'integer' && types.includes('number'));

/**
 * FIELD_TYPE_CHANGED: a field's JSON type changed. Widened (now also null, say):
 * new writers send values old readers refuse. Narrowed: new readers refuse old
 * writers' values. Anything else: both.
 */
export const fieldTypeChanged = staticRule({
  id: 'FIELD_TYPE_CHANGED',
  compatibilityRule: 3,
  purpose: 'A payload field’s JSON type changed, so a reader of one version refuses or misreads the other’s values.',
  fix: { fix: "keep the field's JSON type; publish the new type in a new field, gated if old readers must not see it", docs: FIX_DOCS.gating },
  judge: (baseline, current) => {
    const findings: FindingDraft[] = [];
    for (const [before, after] of jsonPairs(baseline, current)) {
      const now = schemaFields(after.schema);
      for (const field of schemaFields(before.schema).values()) {
        const changed = now.get(field.path);
        if (!changed || changed.type === field.type || field.type === 'unknown' || changed.type === 'unknown') continue;
        const was = field.type.split('|');
        const is = changed.type.split('|');
        const writer = writerOf(before.direction);
        const directions = new Set([
          ...(was.every((t) => admits(is, t)) ? [] : [oldWriterToNewReader(writer)]),
          ...(is.every((t) => admits(was, t)) ? [] : [newWriterToOldReader(writer)]),
        ]);
        for (const direction of directions) {
          findings.push({
            direction,
            subject: `${before.name}.${field.path}`,
            message: `${before.name}.${field.path} was ${field.type} in the baseline and is ${changed.type} now`,
            evidence: { before: field.type, after: changed.type },
          });
        }
      }
    }
    return findings;
  },
});
