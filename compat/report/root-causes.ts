import type { Finding } from '../rules/finding.js';
import { sortAndDedupe, stepRank } from './sort.js';

/** A finding as reported: a stable id within the report, and the root cause that explains it, if one does. */
export interface ReportedFinding extends Finding {
  readonly id: string;
  /** The id of the root cause this finding is a consequence of. */
  readonly causedBy?: string;
  /** Where its subject is declared in the working tree (an opcode row, a schema field), when known. */
  readonly location?: { readonly file: string; readonly line: number };
}

/** Rules whose findings are symptoms: they say something went wrong, not why. */
const SYMPTOM_RULES: ReadonlySet<string> = new Set(['JOURNEY_STALLED', 'SCREEN_MISMATCH', 'INPUT_NOT_EXACTLY_ONCE']);

const samePairing = (a: Finding, b: Finding) => a.direction === b.direction && a.baseline === b.baseline;

/** A static finding about an opcode or one of its fields explains the receiver refusing that opcode's frames. */
function explainsRefusal(cause: Finding, refusal: Finding): boolean {
  return cause.pass === 'static' && samePairing(cause, refusal) && (cause.subject === refusal.subject || cause.subject.startsWith(`${refusal.subject}.`));
}

/**
 * Orders findings root causes first, each followed by the findings it
 * explains: a refusal of an opcode is explained by a static finding on that
 * opcode in the same pairing; a stall, a screen mismatch or input not
 * delivered exactly once is explained by the first refusal at or before its
 * step in the same pairing. Anything unexplained is a root cause itself.
 */
export function orderByRootCause(findings: readonly Finding[], locate: (f: Finding) => ReportedFinding['location'] = () => undefined): ReportedFinding[] {
  const sorted = sortAndDedupe(findings);
  const rootOf = new Map<Finding, Finding>();
  for (const f of sorted) {
    if (f.ruleId !== 'FRAME_REFUSED') continue;
    const cause = sorted.find((c) => explainsRefusal(c, f));
    if (cause) rootOf.set(f, cause);
  }
  for (const f of sorted) {
    if (!SYMPTOM_RULES.has(f.ruleId)) continue;
    const refusal = sorted.find((r) => r.ruleId === 'FRAME_REFUSED' && samePairing(r, f) && stepRank(r.step) <= stepRank(f.step));
    if (refusal) rootOf.set(f, rootOf.get(refusal) ?? refusal);
  }
  const roots = sorted.filter((f) => !rootOf.has(f));
  // Under a cause, the refusals it explains come before the symptoms they in turn explain.
  const explained = (root: Finding) => sorted.filter((f) => rootOf.get(f) === root);
  const ordered = roots.flatMap((root) => [root, ...explained(root).filter((f) => !SYMPTOM_RULES.has(f.ruleId)), ...explained(root).filter((f) => SYMPTOM_RULES.has(f.ruleId))]);
  const ids = new Map(ordered.map((f, i) => [f, `F${i + 1}`]));
  return ordered.map((f) => {
    const root = rootOf.get(f);
    const location = locate(f);
    return { ...f, id: ids.get(f)!, ...(root ? { causedBy: ids.get(root)! } : {}), ...(location ? { location } : {}) };
  });
}

/** The findings `root` explains, in report order. */
export function consequencesOf(root: ReportedFinding, all: readonly ReportedFinding[]): ReportedFinding[] {
  return all.filter((f) => f.causedBy === root.id);
}
