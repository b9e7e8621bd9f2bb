import { STEP_NAMES, OCCURRENCES } from '../recording.js';
import type { Finding } from '../rules/finding.js';

const rank = (list: readonly string[], v: string | undefined) => (v === undefined ? -1 : list.indexOf(v));

function compare(a: Finding, b: Finding): number {
  return (
    (a.baseline ?? '').localeCompare(b.baseline ?? '') ||
    a.pass.localeCompare(b.pass) ||
    a.direction.localeCompare(b.direction) ||
    rank(STEP_NAMES, a.step) - rank(STEP_NAMES, b.step) ||
    rank(OCCURRENCES, a.occurrence) - rank(OCCURRENCES, b.occurrence) ||
    a.ruleId.localeCompare(b.ruleId) ||
    a.subject.localeCompare(b.subject) ||
    a.message.localeCompare(b.message)
  );
}

/** Sorted by baseline, pass, direction, journey order, rule and subject; exact duplicates dropped. */
export function sortAndDedupe(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of [...findings].sort(compare)) {
    const key = JSON.stringify([f.baseline, f.ruleId, f.direction, f.step, f.occurrence, f.subject, f.message]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}
