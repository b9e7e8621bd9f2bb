import { newWriterToOldReader } from '../finding.js';
import type { JourneyRecordingSet, ProbeEnd, StepName } from '../../recording.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';
import { codeOfText } from './field-values.js';
import { stepOk } from './frame-slots.js';

/** What a client reads of a refused upgrade: 401 and 403 both say the token was wrong (AUTH_REFUSED); any other answer is a failure to connect. */
const refusalOf = (status: number | undefined) => (status === 401 || status === 403 ? 'refused the token (HTTP 401 or 403)' : `refused the upgrade ${status ? `with HTTP ${status}` : 'without an HTTP answer'}`);

/**
 * What a peer reads of an end: whether the link closed, and the stable code
 * its reason starts with (the message may be reworded); whether an upgrade
 * was refused as a wrong token. The close code is evidence only: no termwire
 * client reads it, and v0.2.0's host peer closed every link with its default
 * code (its link wrapper dropped the limit's 1008).
 */
const endOf = (e: ProbeEnd): string => {
  switch (e.outcome) {
    case 'closed':
      return `closed with ${codeOfText(e.reason ?? '')}`;
    case 'refused':
      return refusalOf(e.status);
    case 'admitted':
      return 'admitted a wrong token';
    case 'stayedOpen':
      return 'kept open';
  }
};

/**
 * Why an old peer cares, by how the old host ended the connection. An end
 * not listed is not judged: an old host that kept a flood's connection had no
 * such limit (v0.1.0), and a new limit is LIMIT_LOWERED's to judge by its
 * promised value; one that admitted a wrong token promised nothing to keep.
 */
const WHY_JUDGED: Readonly<Partial<Record<ProbeEnd['outcome'], string>>> = {
  closed: "a peer reads the reason's code to tell a limit it went past from a failure, and a host that keeps the connection has lost the limit",
  refused: 'a client reads 401 or 403 as a wrong token (AUTH_REFUSED) and anything else as a network failure it retries; a host that admits a wrong token has lost its authentication',
};

/**
 * HOST_CLOSE_CHANGED (Rule 3): the new host ends a connection of the probe
 * otherwise than the old host does on the same bytes in old × old: a flood
 * past maxErrorRepliesPerSecond (limitsClosed) closed with another reason
 * code, or not at all; an upgrade with a wrong token (wrongToken) answered
 * with a status a client does not read as a wrong token, or admitted. The
 * probe sends both hosts the same bytes, so the old host's own end is the
 * expectation.
 */
export const hostCloseChanged = dynamicRule({
  id: 'HOST_CLOSE_CHANGED',
  compatibilityRule: 3,
  purpose: 'The new host ends a connection of the gate’s probe otherwise than the old host did on the same bytes: past a limit, a close reason with another stable code or no close at all; with a wrong token, an answer other than 401 or 403, or the connection admitted.',
  fix: { fix: 'close a connection past a limit with a reason that starts with the limit’s stable code (src/host/options.ts HOST_CLOSE_REASONS), and refuse a wrong token with 401, as the old host does', docs: FIX_DOCS.protocol },
  judge: (recordings: JourneyRecordingSet) => {
    const skew = recordings.oldClientNewHost;
    const reference = recordings.oldOld;
    const steps = new Set((reference.probeEnds ?? []).map((e) => e.step as StepName));
    return [...steps].flatMap((step) => {
      if (!stepOk(skew, step) || !stepOk(reference, step)) return [];
      const inStep = (ends: readonly ProbeEnd[] | undefined) => (ends ?? []).filter((e) => e.step === step);
      const actual = inStep(skew.probeEnds);
      return inStep(reference.probeEnds).flatMap((expected, i) => {
        const why = WHY_JUDGED[expected.outcome];
        if (!why) return [];
        const was = endOf(expected);
        const now = actual[i] ? endOf(actual[i]) : 'kept open';
        if (was === now) return [];
        return [
          {
            direction: newWriterToOldReader('host'),
            subject: expected.outcome === 'closed' ? `close:${codeOfText(expected.reason ?? '')}` : 'upgrade:wrong token',
            step,
            message: `in step ${step} the new host ${now === 'kept open' ? 'kept the connection open' : now}, where the old host ${was}, on the same bytes from the proxy's probe; ${why}`,
            evidence: { before: was, after: now, reasonBefore: expected.reason ?? null, reasonAfter: actual[i]?.reason ?? null, codeBefore: expected.code ?? null, codeAfter: actual[i]?.code ?? null, statusBefore: expected.status ?? null, statusAfter: actual[i]?.status ?? null },
          },
        ];
      });
    });
  },
});
