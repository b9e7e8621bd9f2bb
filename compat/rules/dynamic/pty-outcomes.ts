import type { Finding } from '../finding.js';
import type { PairingRecording } from '../../recording.js';
import { frameRefused, inputNotExactlyOnce, journeyStalled, screenMismatch, type SomePairings, ungatedSendDropped } from './journey-outcome-rules.js';

/**
 * The PTY pass is judged on outcomes only (a real shell's output timing makes
 * frame counts meaningless): stalls, input exactly once, equal screens, and
 * sends the new build's own send gate dropped.
 */
export function runPtyOutcomeRules(recordings: SomePairings): Finding[] {
  return outcomeFindings(recordings).map((f) => ({ ...f, subject: `pty ${f.subject}`, message: `real PTY pass: ${f.message}` }));
}

const outcomeFindings = (recordings: SomePairings) => [journeyStalled, inputNotExactlyOnce, screenMismatch, ungatedSendDropped].flatMap((rule) => rule(recordings));
const sameFailing = (f: Finding) => `${f.ruleId} ${f.step ?? ''} ${f.subject}`;

type PassRecordings = SomePairings & { readonly oldOld?: PairingRecording };

/**
 * A pass judged on outcomes, like the PTY pass. A failing of the old client
 * that it shows against its own host (old × old, walked only then) too is the
 * release's own, not the new host's: it is left out of old client × new host.
 */
function passOutcomeRules(subject: string, message: string, judge: (r: SomePairings) => Finding[] = outcomeFindings) {
  return (recordings: PassRecordings): Finding[] => {
    const { oldOld, ...judged } = recordings;
    const own = new Set(oldOld ? judge({ oldClientNewHost: oldOld }).map(sameFailing) : []);
    return judge(judged)
      .filter((f) => !(f.direction === 'old client × new host' && own.has(sameFailing(f))))
      .map((f) => ({ ...f, subject: `${subject} ${f.subject}`, message: `${message}: ${f.message}` }));
  };
}

/** The restart pass: the host stops under a live client and starts as the other build. */
export const restartOutcomeRules = passOutcomeRules('host restart', 'host restarted under a live client');

/** The byte-stream pass, judged on refused frames too: a frame one build wrote that the other's decoder refused, cut from the stream by the wire spec's framing. */
export const streamOutcomeRules = passOutcomeRules('byte stream', 'over the byte stream', (r) => [...outcomeFindings(r), ...frameRefused(r)]);

/** The lifetime pass: a client leaves its terminal and comes back within the host's lifetime for detached terminals. */
export const lifetimeOutcomeRules = passOutcomeRules('detached lifetime', "a client left its terminal and came back within the host's lifetime for detached terminals");
