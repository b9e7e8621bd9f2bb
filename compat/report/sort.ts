import { STEP_NAMES, OCCURRENCES } from '../recording.js';
import type { Finding } from '../rules/finding.js';

/** A finding without a step judges the whole journey (screens, input): it sorts after every step. */
const stepRank = (step: string | undefined) => (step === undefined ? STEP_NAMES.length : (STEP_NAMES as readonly string[]).indexOf(step));
const occurrenceRank = (o: string | undefined) => (o === undefined ? -1 : (OCCURRENCES as readonly string[]).indexOf(o));
/** Static findings are causes a reader can act on without running anything: they lead. */
const PASS_ORDER = { static: 0, dynamic: 1 } as const;

export function compareFindings(a: Finding, b: Finding): number {
  return (
    (a.baseline ?? '').localeCompare(b.baseline ?? '') ||
    PASS_ORDER[a.pass] - PASS_ORDER[b.pass] ||
    stepRank(a.step) - stepRank(b.step) ||
    occurrenceRank(a.occurrence) - occurrenceRank(b.occurrence) ||
    a.direction.localeCompare(b.direction) ||
    a.ruleId.localeCompare(b.ruleId) ||
    a.subject.localeCompare(b.subject) ||
    a.message.localeCompare(b.message)
  );
}

export { stepRank };

/** Two findings with the same key are one: the same break, said the same way. */
export const dedupeKey = (f: Finding): string => JSON.stringify([f.baseline, f.ruleId, f.direction, f.step, f.occurrence, f.subject, f.message]);

/** Sorted by baseline, static before dynamic, journey order, direction, rule and subject; exact duplicates dropped. */
export function sortAndDedupe(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of [...findings].sort(compareFindings)) {
    const key = dedupeKey(f);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}
