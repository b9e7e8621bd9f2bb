import type { Finding } from '../finding.js';
import type { PairingRecording } from '../../recording.js';
import { frameRefused, inputNotExactlyOnce, journeyStalled, screenMismatch, type SomePairings, ungatedSendDropped } from './journey-outcome-rules.js';

/**
 * The passes beside the script are judged on outcomes only (a real shell's
 * output timing, a restart or a detach make frame counts meaningless): stalls,
 * input exactly once, equal screens, and sends the new build's own send gate dropped.
 */
export const outcomeFindings = (recordings: SomePairings): Finding[] => [journeyStalled, inputNotExactlyOnce, screenMismatch, ungatedSendDropped].flatMap((rule) => rule.run(recordings));

/** Outcomes, and frames one build wrote that the other's decoder refused: for a pass over another transport, whose framing the script does not walk. */
export const outcomeAndRefusalFindings = (recordings: SomePairings): Finding[] => [...outcomeFindings(recordings), ...frameRefused.run(recordings)];

const sameFailing = (f: Finding) => `${f.ruleId} ${f.step ?? ''} ${f.subject}`;

export type PassRecordings = SomePairings & { readonly oldOld?: PairingRecording };

/**
 * A pass's outcome rules, its findings named by the pass (`byte stream
 * Metadata`, "over the byte stream: ..."). A failing of the old client that it
 * shows against its own host (old × old, walked only then) too is the
 * release's own, not the new host's: it is left out of old client × new host.
 */
export function passOutcomeRules(label: string, says: string, judge: (r: SomePairings) => Finding[] = outcomeFindings) {
  return (recordings: PassRecordings): Finding[] => {
    const { oldOld, ...judged } = recordings;
    const own = new Set(oldOld ? judge({ oldClientNewHost: oldOld }).map(sameFailing) : []);
    return judge(judged)
      .filter((f) => !(f.direction === 'old client × new host' && own.has(sameFailing(f))))
      .map((f) => ({ ...f, subject: `${label} ${f.subject}`, message: `${says}: ${f.message}` }));
  };
}
