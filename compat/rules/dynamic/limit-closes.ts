import { newWriterToOldReader } from '../finding.js';
import type { JourneyRecordingSet, ProbeEnd, StepName } from '../../recording.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';
import { codeOfText } from './field-values.js';
import { stepOk } from './frame-slots.js';

/**
 * What a peer reads of an end: whether the link closed, and the stable code
 * its reason starts with (the message may be reworded). The close code is
 * evidence only: no termwire client reads it, and v0.2.0's host peer closed
 * every link with its default code (its link wrapper dropped the limit's 1008).
 */
const endOf = (e: ProbeEnd) => (e.outcome === 'closed' ? `closed with ${codeOfText(e.reason ?? '')}` : 'kept open');

/**
 * HOST_CLOSE_CHANGED (Rule 3): the new host ends the probe's connection
 * (limitsClosed: a flood past maxErrorRepliesPerSecond) otherwise than the old
 * host does on the same bytes in old × old: another reason code, or no close
 * at all. The probe sends both hosts the same frames, so the old host's own
 * end is the expectation. A peer reads the reason's code to tell a limit it
 * went past (back off) from a failure; a host that no longer closes has lost
 * the limit that kept one peer from costing every other.
 */
export const hostCloseChanged = dynamicRule({
  id: 'HOST_CLOSE_CHANGED',
  compatibilityRule: 3,
  purpose: 'The new host ends a connection past a limit otherwise than the old host did on the same frames: a close reason with another stable code, or no close at all.',
  fix: { fix: 'close a connection past a limit with a reason that starts with the limit’s stable code (src/host/options.ts HOST_CLOSE_REASONS), as the old host does', docs: FIX_DOCS.protocol },
  judge: (recordings: JourneyRecordingSet) => {
    const skew = recordings.oldClientNewHost;
    const reference = recordings.oldOld;
    const steps = new Set((reference.probeEnds ?? []).map((e) => e.step as StepName));
    return [...steps].flatMap((step) => {
      if (!stepOk(skew, step) || !stepOk(reference, step)) return [];
      const inStep = (ends: readonly ProbeEnd[] | undefined) => (ends ?? []).filter((e) => e.step === step);
      const actual = inStep(skew.probeEnds);
      return inStep(reference.probeEnds).flatMap((expected, i) => {
        // An old host that kept the connection had no such limit (v0.1.0): a new limit is LIMIT_LOWERED's to judge, by its promised value.
        if (expected.outcome !== 'closed') return [];
        const was = endOf(expected);
        const now = actual[i] ? endOf(actual[i]) : 'kept open';
        if (was === now) return [];
        return [
          {
            direction: newWriterToOldReader('host'),
            subject: `close:${codeOfText(expected.reason ?? '')}`,
            step,
            message: `in step ${step} the new host ${now === 'kept open' ? 'kept the connection open' : now}, where the old host ${was}, on the same frames from the proxy's probe; a peer reads the reason's code to tell a limit from a failure, and a host that keeps the connection has lost the limit`,
            evidence: { before: was, after: now, reasonBefore: expected.reason ?? null, reasonAfter: actual[i]?.reason ?? null, codeBefore: expected.code ?? null, codeAfter: actual[i]?.code ?? null },
          },
        ];
      });
    });
  },
});
