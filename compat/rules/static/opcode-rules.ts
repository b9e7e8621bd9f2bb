import type { ManifestOpcode, WireManifest } from '../../../src/manifest/manifest-schema.js';
import { type Finding, newWriterToOldReader, oldWriterToNewReader, writerOf } from '../finding.js';
import { FIX_DOCS, type FindingDraft, staticRule } from '../rule-spec.js';

const byCode = (m: WireManifest): Map<number, ManifestOpcode> => new Map(m.opcodes.map((o) => [o.code, o]));

const brief = (o: ManifestOpcode) => ({ code: o.code, name: o.name, direction: o.direction, payloadKind: o.payloadKind, gatedBy: o.gatedBy, retired: o.retired });

/** OPCODE_NUMBER_REUSED: each side reads the other's frames under the wrong name. */
export const opcodeNumberReused = staticRule({
  id: 'OPCODE_NUMBER_REUSED',
  compatibilityRule: 2,
  purpose: 'An opcode number that shipped now names a different opcode, so each side misreads the other.',
  fix: { fix: 'give the new opcode the next free number; a number that shipped keeps its name forever (mark a removed one retired)', docs: FIX_DOCS.register },
  judge: (baseline, current) => {
    const now = byCode(current);
    const findings: FindingDraft[] = [];
    for (const before of baseline.opcodes) {
      const after = now.get(before.code);
      if (!after || after.name === before.name) continue;
      const directions = new Set([oldWriterToNewReader(writerOf(before.direction)), newWriterToOldReader(writerOf(after.direction))]);
      for (const direction of directions) {
        findings.push({
          direction,
          subject: `opcode ${before.code}`,
          message: `opcode ${before.code} was ${before.name} in the baseline and is ${after.name} now`,
          evidence: { before: brief(before), after: brief(after) },
        });
      }
    }
    return findings;
  },
});

/** OPCODE_REMOVED: an old writer's frames meet a reader that no longer knows the number. */
export const opcodeRemoved = staticRule({
  id: 'OPCODE_REMOVED',
  compatibilityRule: 2,
  purpose: 'An opcode number disappeared without a retired tombstone, so its number can be reused and old peers that send it are dropped.',
  fix: { fix: 'keep the opcode in the table marked retired, so its number is never reused', docs: FIX_DOCS.register },
  judge: (baseline, current) => {
    const now = byCode(current);
    return baseline.opcodes
      .filter((before) => !now.has(before.code))
      .map((before) => ({
        direction: oldWriterToNewReader(writerOf(before.direction)),
        subject: before.name,
        message: `opcode ${before.code} ${before.name} is gone from the table; keep it as a retired tombstone so the number is never reused`,
        evidence: { before: brief(before), after: null },
      }),
      );
  },
});

/** OPCODE_NEW_UNGATED: a new writer may send it to an old decoder, which drops it. */
export const opcodeNewUngated = staticRule({
  id: 'OPCODE_NEW_UNGATED',
  compatibilityRule: 2,
  purpose: 'A new opcode has no gating capability, so it can reach an old decoder that drops it.',
  fix: { fix: 'gate the opcode behind a capability (`gatedBy`) and send it only after the peer echoes it', docs: FIX_DOCS.gating },
  judge: (baseline, current) => {
    const then = byCode(baseline);
    return current.opcodes
      .filter((after) => !then.has(after.code) && !after.retired && after.gatedBy === null)
      .map((after) => ({
        direction: newWriterToOldReader(writerOf(after.direction)),
        subject: after.name,
        message: `new opcode ${after.code} ${after.name} has no gating capability; announce it in subscribe and send it only after the echo`,
        evidence: { before: null, after: brief(after) },
      }),
      );
  },
});

/** PAYLOAD_KIND_CHANGED: the encoding changed, so both skews misread. */
export const payloadKindChanged = staticRule({
  id: 'PAYLOAD_KIND_CHANGED',
  compatibilityRule: 2,
  purpose: "An opcode's payload encoding (text, empty, flag, json) changed, so neither side reads the other's payload.",
  fix: { fix: 'keep the payload encoding; send the new encoding on a new, gated opcode', docs: FIX_DOCS.gating },
  judge: (baseline, current) => {
    const now = byCode(current);
    const findings: FindingDraft[] = [];
    for (const before of baseline.opcodes) {
      const after = now.get(before.code);
      if (!after || after.name !== before.name || after.payloadKind === before.payloadKind) continue;
      for (const direction of new Set([newWriterToOldReader(writerOf(after.direction)), oldWriterToNewReader(writerOf(before.direction))])) {
        findings.push({
          direction,
          subject: before.name,
          message: `${before.name} payload was ${before.payloadKind} and is ${after.payloadKind} now`,
          evidence: { before: before.payloadKind, after: after.payloadKind },
        });
      }
    }
    return findings;
  },
});
