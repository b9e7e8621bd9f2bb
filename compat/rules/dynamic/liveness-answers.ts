import { newWriterToOldReader } from '../finding.js';
import type { LivenessExchange, PairingKey, StepName } from '../../recording.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';

/** The skew pairings, by which side of them is new. */
const SKEW: ReadonlyArray<{ key: PairingKey; newSide: 'client' | 'host' }> = [
  { key: 'oldClientNewHost', newSide: 'host' },
  { key: 'newClientOldHost', newSide: 'client' },
];

const WHAT: Record<Exclude<LivenessExchange['outcome'], 'echoed'>, string> = {
  otherPayload: 'with a pong whose payload is not the ping’s',
  unanswered: 'with no pong while the link stayed up',
};

/**
 * LIVENESS_ANSWER_CHANGED (Rule 3): the new build answered the old build's
 * ping (or the proxy's, asked on the host's behalf) with no pong, or with a
 * pong that does not echo the ping's payload (RFC 6455 5.5.3). Old peers
 * accept only the echo as proof of life, so they declare the link dead and
 * reconnect over and over. One finding per pairing and kind of answer.
 */
export const livenessAnswerChanged = dynamicRule({
  id: 'LIVENESS_ANSWER_CHANGED',
  compatibilityRule: 3,
  purpose: 'The new build answers the old build’s pings with no pong, or with a pong that does not echo the ping’s payload, so the old peer declares a live link dead.',
  fix: { fix: 'answer every ping with a pong carrying its payload unchanged (let ws auto-pong): old peers check the echo', docs: FIX_DOCS.protocol },
  judge: (recordings) =>
    SKEW.flatMap(({ key, newSide }) => {
      const wrong = (recordings[key].liveness ?? []).filter((x) => x.answerer === newSide && x.outcome !== 'echoed');
      return (['otherPayload', 'unanswered'] as const).flatMap((outcome) => {
        const ofKind = wrong.filter((x) => x.outcome === outcome);
        const firstOne = ofKind[0];
        if (!firstOne) return [];
        const answered = (recordings[key].liveness ?? []).filter((x) => x.answerer === newSide).length;
        return [
          {
            direction: newWriterToOldReader(newSide),
            subject: `liveness:pong`,
            step: firstOne.step as StepName,
            message: `the new ${newSide} answered ${ofKind.length} of ${answered} pings ${WHAT[outcome]}; an old peer takes only the echo as proof of life and drops the link`,
            evidence: { outcome, count: ofKind.length, of: answered, connection: firstOne.connection, pingHex: firstOne.pingHex, pongHex: firstOne.pongHex ?? null },
          },
        ];
      });
    }),
});
