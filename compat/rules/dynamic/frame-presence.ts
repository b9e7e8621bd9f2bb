import { type Finding, PAIRING_LABELS } from '../finding.js';
import type { PairingRecording } from '../../recording.js';
import { valueFrames } from './field-values.js';
import { authoredSequence, gatingTable, negotiatedInBoth, requestsLeftOut, streamOrdinals } from './frame-sequence.js';
import { isRequest } from './requests.js';
import { TIMING_POLICY } from './timing-policy.js';
import { noStepStalled, OLD_READER_COMPARISONS, occurrenceSlots, slotWhere, stepOk } from './frame-slots.js';
import { FIX_DOCS, type FindingDraft, dynamicRule } from '../rule-spec.js';

/** Timing-policy opcodes judged by presence that a side wrote, by stream: which of them appear at all, whatever their count or step. */
function timingOpcodesByStream(rec: PairingRecording, direction: PairingRecording['frames'][number]['direction']): Set<string> {
  const ordinals = streamOrdinals(rec);
  return new Set(rec.frames.filter((f) => f.direction === direction && TIMING_POLICY[f.opcodeName]?.presence === 'onStream').map((f) => `${f.opcodeName}@s${ordinals.get(f.streamId)}`));
}

/**
 * FRAME_NO_LONGER_SENT (Rule 3): a frame the old build's counterpart sends in
 * old × old that the new build no longer sends toward the old build. Where the
 * step's frame sequence shows it, FRAME_SEQUENCE_CHANGED reports it; this rule
 * reports the rest: one of a run of equal frames (the sequence collapses runs),
 * and the timing-policy frames the sequence leaves out whose presence a peer
 * needs (TIMING_POLICY): those count as sent when they appear anywhere on the
 * stream. An Ack's absence is judged by its consequence, not here.
 */
export const frameNoLongerSent = dynamicRule({
  id: 'FRAME_NO_LONGER_SENT',
  compatibilityRule: 3,
  purpose: 'A frame the old build’s counterpart sends in old × old is no longer sent by the new build toward the old build, where the step’s frame sequence cannot show it.',
  fix: { fix: 'keep sending the frame on this path to peers that did not negotiate its replacement', docs: FIX_DOCS.gating },
  judge: (recordings, manifests) => {
    const gating = gatingTable(manifests);
    const findings: FindingDraft[] = [];
    for (const c of OLD_READER_COMPARISONS) {
      const skew = recordings[c.skew];
      const reference = recordings.oldOld;
      const keep = negotiatedInBoth(skew, reference, gating);
      const include = valueFrames(keep);
      const actual = occurrenceSlots(skew, c.direction, include);
      const leaveOut = requestsLeftOut({ author: c.direction === 'clientToHost' ? 'client' : 'host', reference: 'oldOld' }, 'new', skew, reference);
      for (const [key, ref] of occurrenceSlots(reference, c.direction, include)) {
        // A new client's request serves only that client (REQUESTS): what it shows judges it, not whether it asked.
        if (actual.has(key) || isRequest(ref.frame) || !stepOk(skew, ref.step) || !stepOk(reference, ref.step)) continue;
        const client = ref.frame.client ?? 'primary';
        const [expected, written] = [reference, skew].map((rec) => authoredSequence(rec, c.direction, ref.step, keep, client, leaveOut(ref.step, client)).join(' '));
        if (expected !== written) continue;
        findings.push({
          direction: PAIRING_LABELS[c.skew],
          subject: ref.label,
          step: ref.step,
          ...(ref.occurrence ? { occurrence: ref.occurrence } : {}),
          message: `the ${c.writer} no longer sends ${ref.label} (${slotWhere(ref)}); the old build sends it there`,
          evidence: { before: ref.frame.payload ?? null, after: null, referenceFrame: ref.frame.index },
        });
      }
      if (!noStepStalled(skew) || !noStepStalled(reference)) continue;
      const sent = timingOpcodesByStream(skew, c.direction);
      for (const element of timingOpcodesByStream(reference, c.direction)) {
        const [opcodeName] = element.split('@');
        if (sent.has(element) || !keep(opcodeName!)) continue;
        findings.push({
          direction: PAIRING_LABELS[c.skew],
          subject: opcodeName!,
          message: `the ${c.writer} never sends ${opcodeName} on ${element.split('@')[1]} (streams by order of first use); the old build does`,
          evidence: { before: element, after: null },
        });
      }
    }
    return findings;
  },
});
