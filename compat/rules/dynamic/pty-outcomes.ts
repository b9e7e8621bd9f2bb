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

/**
 * The restart pass, judged like the PTY pass. A failing of the old client
 * that it shows against its own host restarting (old → old) too is the
 * release's own, not the new host's: it is left out of old → new.
 */
export function restartOutcomeRules(recordings: SomePairings & { readonly oldOld?: PairingRecording }): Finding[] {
  const { oldOld, ...judged } = recordings;
  const own = new Set(oldOld ? outcomeFindings({ oldClientNewHost: oldOld }).map(sameFailing) : []);
  return outcomeFindings(judged)
    .filter((f) => !(f.direction === 'old client × new host' && own.has(sameFailing(f))))
    .map((f) => ({ ...f, subject: `host restart ${f.subject}`, message: `host restarted under a live client: ${f.message}` }));
}

/**
 * The byte-stream pass, judged like the restart pass, and on refused frames
 * too: a frame one build wrote that the other's decoder refused, cut from the
 * stream by the wire spec's framing.
 */
export function streamOutcomeRules(recordings: SomePairings & { readonly oldOld?: PairingRecording }): Finding[] {
  const { oldOld, ...judged } = recordings;
  const judge = (r: SomePairings) => [...outcomeFindings(r), ...frameRefused(r)];
  const own = new Set(oldOld ? judge({ oldClientNewHost: oldOld }).map(sameFailing) : []);
  return judge(judged)
    .filter((f) => !(f.direction === 'old client × new host' && own.has(sameFailing(f))))
    .map((f) => ({ ...f, subject: `byte stream ${f.subject}`, message: `over the byte stream: ${f.message}` }));
}

const outcomeFindings = (recordings: SomePairings) => [journeyStalled, inputNotExactlyOnce, screenMismatch, ungatedSendDropped].flatMap((rule) => rule(recordings));
const sameFailing = (f: Finding) => `${f.ruleId} ${f.step ?? ''} ${f.subject}`;
