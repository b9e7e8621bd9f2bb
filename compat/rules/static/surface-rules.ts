import { entriesOf, readSurface } from '../../manifest/surface.js';
import { type Finding, newWriterToOldReader, oldWriterToNewReader, PAIRING_LABELS } from '../finding.js';
import { FIX_DOCS, type FindingDraft, staticRule } from '../rule-spec.js';

const SKEWS = [PAIRING_LABELS.oldClientNewHost, PAIRING_LABELS.newClientOldHost] as const;

/** WIRE_VERSION_CHANGED: byte 1 of every frame differs, so each side refuses the other's frames (BAD_VERSION). */
export const wireVersionChanged = staticRule({
  id: 'WIRE_VERSION_CHANGED',
  compatibilityRule: 2,
  purpose: 'The wire version in byte 1 of every frame changed, so each side refuses the other’s frames.',
  fix: { fix: 'keep writing wire version 1: a decoder refuses every frame of a version it does not speak; a new wire version needs its own negotiation', docs: FIX_DOCS.protocol },
  judge: (baseline, current) =>
    baseline.wireVersion === current.wireVersion
      ? []
      : SKEWS.map((direction) => ({
          direction,
          subject: 'wire version',
          message: `the wire version was ${baseline.wireVersion} in the baseline and is ${current.wireVersion} now; every frame carries it in byte 1`,
          evidence: { before: baseline.wireVersion, after: current.wireVersion },
        }),
        ),
});

/** ERROR_CODE_REMOVED: a client that acts on an Error's code never sees it again; a rename is a removal plus an addition. */
export const errorCodeRemoved = staticRule({
  id: 'ERROR_CODE_REMOVED',
  compatibilityRule: 3,
  purpose: 'An Error code the baseline declared is gone or renamed, so old clients that act on it never see it.',
  fix: { fix: 'keep the error code (codes are permanent once shipped); add a new code beside it for a new meaning', docs: FIX_DOCS.register },
  judge: (baseline, current) => {
    // A baseline without a surface list has no error entries: nothing to judge, and surfaceNotes says so.
    const then = readSurface(baseline);
    const now = entriesOf(readSurface(current), 'error');
    const nowKeys = new Set(now.map((e) => e.key));
    const thenKeys = new Set(entriesOf(then, 'error').map((e) => e.key));
    return entriesOf(then, 'error')
      .filter((e) => !nowKeys.has(e.key))
      .map((e) => {
        const renamed = now.find((n) => n.source === e.source && n.meaning === e.meaning && !thenKeys.has(n.key));
        return{
          // Host codes reach clients in Error frames; decoder codes too, quoted in BAD_FRAME.
          direction: PAIRING_LABELS.oldClientNewHost,
          subject: e.key,
          message: `${e.source} error code ${e.code} is gone${renamed ? `, apparently renamed to ${renamed.code}` : ''}; a code that shipped is permanent, old clients match on it`,
          evidence: { before: e.code, after: renamed ? renamed.code : null, meaning: e.meaning },
        };
      });
  },
});

/** EVENT_TYPE_REMOVED: old clients wait for a control event the new host no longer sends. */
export const eventTypeRemoved = staticRule({
  id: 'EVENT_TYPE_REMOVED',
  compatibilityRule: 3,
  purpose: 'A Metadata event type the baseline declared is gone, so old clients that wait for it never get it.',
  fix: { fix: 'keep publishing the event type for peers that did not negotiate its replacement', docs: FIX_DOCS.gating },
  judge: (baseline, current) => {
    const now = new Set(entriesOf(readSurface(current), 'event').map((e) => e.type));
    return entriesOf(readSurface(baseline), 'event')
      .filter((e) => !now.has(e.type))
      .map((e) => ({
        direction: PAIRING_LABELS.oldClientNewHost,
        subject: e.key,
        message: `Metadata event type '${e.type}' is gone from the event table; old clients that wait for it never get it`,
        evidence: { before: e.type, after: null },
      }),
      );
  },
});

/**
 * FLAG_VALUE_CHANGED: a flag value that shipped now says something else (both
 * skews misread it) or is gone (the new reader no longer understands old writers).
 * Meaning is compared by its status name, never by the prose, which may be reworded.
 */
export const flagValueChanged = staticRule({
  id: 'FLAG_VALUE_CHANGED',
  compatibilityRule: 3,
  purpose: 'A flag value that shipped changed meaning or disappeared, so one side misreads or drops the other’s flag.',
  fix: { fix: 'a flag value keeps its meaning forever: give the new meaning a new value, gated by a capability', docs: FIX_DOCS.register },
  judge: (baseline, current) => {
    const then = readSurface(baseline);
    const now = new Map(entriesOf(readSurface(current), 'flag').map((e) => [e.key, e]));
    const findings: FindingDraft[] = [];
    for (const before of entriesOf(then, 'flag')) {
      const after = now.get(before.key);
      if (after?.status === before.status) continue;
      const value = before.value ?? 'absent';
      const directions = after ? SKEWS : [oldWriterToNewReader(before.directions[0] === 'hostToClient' ? 'host' : 'client')];
      for (const direction of directions) {
        findings.push({
          direction,
          subject: before.key,
          message: after ? `${before.opcode} flag ${value} meant ${before.status} in the baseline and means ${after.status} now` : `${before.opcode} flag ${value} (${before.status}) is gone; new readers no longer understand old writers that send it`,
          evidence: { before: before.status, after: after?.status ?? null },
        });
      }
    }
    return findings;
  },
});

/** OPCODE_GATING_CHANGED: an opcode that needed a capability is sent without it, or under another one. */
export const opcodeGatingChanged = staticRule({
  id: 'OPCODE_GATING_CHANGED',
  compatibilityRule: 2,
  purpose: 'An opcode lost its gating capability or moved to another, so it reaches peers that never negotiated it.',
  fix: { fix: "keep the opcode gated by the capability it shipped with: old peers rely on it never arriving un-negotiated", docs: FIX_DOCS.gating },
  judge: (baseline, current) => {
    const now = new Map(current.opcodes.map((o) => [o.code, o]));
    const findings: FindingDraft[] = [];
    for (const before of baseline.opcodes) {
      const after = now.get(before.code);
      if (!before.gatedBy || !after || after.name !== before.name || after.gatedBy === before.gatedBy) continue;
      const writer = before.direction === 'hostToClient' ? 'host' : 'client';
      // Ungated: the new writer sends it to old readers that never negotiated it. Regated: also old writers meet a reader that wants the other capability.
      const directions = new Set([newWriterToOldReader(writer), ...(after.gatedBy ? [oldWriterToNewReader(writer)] : [])]);
      for (const direction of directions) {
        findings.push({
          direction,
          subject: before.name,
          message: `${before.name} was gated by '${before.gatedBy}' in the baseline and is ${after.gatedBy ? `gated by '${after.gatedBy}'` : 'ungated'} now`,
          evidence: { before: before.gatedBy, after: after.gatedBy },
        });
      }
    }
    return findings;
  },
});
