import { newWriterToOldReader } from '../finding.js';
import type { JourneyRecordingSet, ProbeEnd, StepName } from '../../recording.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';
import { codeOfText } from './field-values.js';
import { stepOk } from './frame-slots.js';

/** The stable code a close reason starts with ("CODE: message"); undefined where it names none. */
function reasonCode(e: ProbeEnd): string | undefined {
  const reason = e.reason ?? '';
  const code = codeOfText(reason);
  return code === reason ? undefined : code;
}

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
      return `closed it with ${reasonCode(e) ?? (e.reason ? `the reason '${e.reason}', which names no code` : 'no reason')}`;
    case 'refused':
      return refusalOf(e.status);
    case 'admitted':
      return 'admitted a wrong token';
    case 'stayedOpen':
      return 'kept the connection open';
  }
};


/**
 * Why an old peer cares, by how the old host ended the connection, where the
 * old end is one a peer relies on: a close whose reason names its limit, and
 * a wrong token refused as one. Other old ends are not judged: an old host
 * that kept a flood's connection had no such limit (v0.1.0), and a new limit
 * is LIMIT_LOWERED's to judge by its promised value; one that admitted a
 * wrong token, or answered it otherwise, promised nothing a fix would break.
 */
function whyJudged(e: ProbeEnd): string | undefined {
  if (e.outcome === 'closed' && reasonCode(e)) return "a peer reads the reason's code to tell a limit it went past from a failure, and a host that keeps the connection has lost the limit";
  if (e.outcome === 'refused' && (e.status === 401 || e.status === 403)) return 'a client reads 401 or 403 as a wrong token (AUTH_REFUSED) and anything else as a network failure it retries; a host that admits a wrong token has lost its authentication';
  return undefined;
}

/**
 * How long a host that slows guessing makes the next attempt from a network
 * wait after its first failed authentication: authFailureDelayMs, 100 ms in
 * every release that has the throttle (v0.2.0 on), doubling with each further
 * failure. A host's timer never fires before its delay, so an answer comes at
 * least the sum of the delays before it after the first attempt was sent,
 * however busy the machine.
 */
const FIRST_FAILURE_DELAY_MS = 100;

/** The least time from the first attempt to the answer of one after `failures` failures, on a host whose delays double. */
const slowedBy = (failures: number) => FIRST_FAILURE_DELAY_MS * (2 ** failures - 1);

/**
 * The last of the wrong tokens tried one after another: where the old host
 * made it wait the delays of the failures before it and the new one answered
 * it in less than half that, the new host no longer slows a network that
 * just failed. Half, since a timer may fire a few milliseconds early by the
 * clock of a busy event loop, and a host whose delays grow more slowly is
 * not the rule's business; a host without them answers within round trips.
 */
function notSlowed(expected: ProbeEnd, found: ProbeEnd | undefined): string | undefined {
  const [was, now, failures] = [expected.sinceFirstAttemptMs, found?.sinceFirstAttemptMs, expected.failuresBefore];
  if (was === undefined || now === undefined || failures === undefined || found?.failuresBefore !== failures) return undefined;
  if (was < slowedBy(failures) || now >= slowedBy(failures) / 2) return undefined;
  return `in step wrongToken the new host answered wrong token ${failures + 1} from the same network ${now} ms after the first was sent, where the old host took ${was} ms: failed authentications no longer slow the next attempt (authFailureDelayMs, ${FIRST_FAILURE_DELAY_MS} ms, doubling), so a guesser tries tokens as fast as round trips allow`;
}

/** WebSocket's code for a connection that ended without a close frame. */
const CLOSED_WITHOUT_FRAME = 1006;

/** A new end that says nothing either way: a close whose frame never arrived (the host dropped the socket before the probe read it, on a busy machine). */
const inconclusive = (e: ProbeEnd) => e.outcome === 'closed' && e.code === CLOSED_WITHOUT_FRAME;

/**
 * HOST_CLOSE_CHANGED (Rule 3): the new host ends a connection of the probe
 * otherwise than the old host does on the same bytes in old × old: a flood
 * past maxErrorRepliesPerSecond or maxSnapshotRequestsPerSecond
 * (limitsClosed) closed with another reason code, or not at all; an upgrade
 * with a wrong token (wrongToken) answered with a status a client does not
 * read as a wrong token, or admitted; a later wrong token answered without
 * the delays the failures before it set (notSlowed).
 * The probe sends both hosts the same bytes, so the old host's own end is the
 * expectation.
 */
export const hostCloseChanged = dynamicRule({
  id: 'HOST_CLOSE_CHANGED',
  compatibilityRule: 3,
  purpose: 'The new host ends a connection of the gate’s probe otherwise than the old host did on the same bytes: past a limit, a close reason with another stable code or no close at all; with a wrong token, an answer other than 401 or 403, the connection admitted, or a later attempt answered without the delays the failures before it set.',
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
        const why = whyJudged(expected);
        const found = actual[i];
        if (!why || (found && inconclusive(found))) return [];
        const was = endOf(expected);
        const now = found ? endOf(found) : 'did not end it';
        const faster = was === now ? notSlowed(expected, found) : undefined;
        if (faster) return [{ direction: newWriterToOldReader('host'), subject: 'upgrade:wrong token again', step, message: faster, evidence: { before: `${expected.sinceFirstAttemptMs} ms`, after: `${found!.sinceFirstAttemptMs} ms` } }];
        if (was === now) return [];
        return [
          {
            direction: newWriterToOldReader('host'),
            subject: expected.outcome === 'closed' ? `close:${reasonCode(expected)}` : 'upgrade:wrong token',
            step,
            message: `in step ${step} the new host ${now}, where the old host ${was}, on the same bytes from the proxy's probe; ${why}`,
            evidence: { before: was, after: now, reasonBefore: expected.reason ?? null, reasonAfter: found?.reason ?? null, codeBefore: expected.code ?? null, codeAfter: found?.code ?? null, statusBefore: expected.status ?? null, statusAfter: found?.status ?? null },
          },
        ];
      });
    });
  },
});
