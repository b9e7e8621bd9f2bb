import type { ManifestOpcode, WireManifest } from '../../../src/manifest/manifest-schema.js';
import { type Finding, newWriterToOldReader, oldWriterToNewReader, writerOf } from '../finding.js';
import { type StaticRule, staticFinding } from './types.js';

const byCode = (m: WireManifest): Map<number, ManifestOpcode> => new Map(m.opcodes.map((o) => [o.code, o]));

const brief = (o: ManifestOpcode) => ({ code: o.code, name: o.name, direction: o.direction, payloadKind: o.payloadKind, gatedBy: o.gatedBy, retired: o.retired });

/** OPCODE_NUMBER_REUSED: each side reads the other's frames under the wrong name. */
export const opcodeNumberReused: StaticRule = (baseline, current) => {
  const now = byCode(current);
  const findings: Finding[] = [];
  for (const before of baseline.opcodes) {
    const after = now.get(before.code);
    if (!after || after.name === before.name) continue;
    const directions = new Set([oldWriterToNewReader(writerOf(before.direction)), newWriterToOldReader(writerOf(after.direction))]);
    for (const direction of directions) {
      findings.push(staticFinding({
        ruleId: 'OPCODE_NUMBER_REUSED',
        direction,
        subject: `opcode ${before.code}`,
        message: `opcode ${before.code} was ${before.name} in the baseline and is ${after.name} now`,
        evidence: { before: brief(before), after: brief(after) },
      }));
    }
  }
  return findings;
};

/** OPCODE_REMOVED: an old writer's frames meet a reader that no longer knows the number. */
export const opcodeRemoved: StaticRule = (baseline, current) => {
  const now = byCode(current);
  return baseline.opcodes
    .filter((before) => !now.has(before.code))
    .map((before) =>
      staticFinding({
        ruleId: 'OPCODE_REMOVED',
        direction: oldWriterToNewReader(writerOf(before.direction)),
        subject: before.name,
        message: `opcode ${before.code} ${before.name} is gone from the table; keep it as a retired tombstone so the number is never reused`,
        evidence: { before: brief(before), after: null },
      }),
    );
};

/** OPCODE_NEW_UNGATED: a new writer may send it to an old decoder, which drops it. */
export const opcodeNewUngated: StaticRule = (baseline, current) => {
  const then = byCode(baseline);
  return current.opcodes
    .filter((after) => !then.has(after.code) && !after.retired && after.gatedBy === null)
    .map((after) =>
      staticFinding({
        ruleId: 'OPCODE_NEW_UNGATED',
        direction: newWriterToOldReader(writerOf(after.direction)),
        subject: after.name,
        message: `new opcode ${after.code} ${after.name} has no gating capability; announce it in subscribe and send it only after the echo`,
        evidence: { before: null, after: brief(after) },
      }),
    );
};

/** PAYLOAD_KIND_CHANGED: the encoding changed, so both skews misread. */
export const payloadKindChanged: StaticRule = (baseline, current) => {
  const now = byCode(current);
  const findings: Finding[] = [];
  for (const before of baseline.opcodes) {
    const after = now.get(before.code);
    if (!after || after.name !== before.name || after.payloadKind === before.payloadKind) continue;
    for (const direction of new Set([newWriterToOldReader(writerOf(after.direction)), oldWriterToNewReader(writerOf(before.direction))])) {
      findings.push(staticFinding({
        ruleId: 'PAYLOAD_KIND_CHANGED',
        direction,
        subject: before.name,
        message: `${before.name} payload was ${before.payloadKind} and is ${after.payloadKind} now`,
        evidence: { before: before.payloadKind, after: after.payloadKind },
      }));
    }
  }
  return findings;
};
