import type { Finding } from '../finding.js';
import { inputNotExactlyOnce, journeyStalled, screenMismatch, type SomePairings } from './journey-outcome-rules.js';

/**
 * The PTY pass is judged on outcomes only (a real shell's output timing makes
 * frame counts meaningless): stalls, input exactly once, equal screens.
 */
export function runPtyOutcomeRules(recordings: SomePairings): Finding[] {
  return [journeyStalled, inputNotExactlyOnce, screenMismatch]
    .flatMap((rule) => rule(recordings))
    .map((f) => ({ ...f, subject: `pty ${f.subject}`, message: `real PTY pass: ${f.message}` }));
}
