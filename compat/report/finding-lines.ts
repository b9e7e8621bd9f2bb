import { ruleEntry } from '../rules/catalog.js';
import type { Finding } from '../rules/finding.js';
import { acknowledgementEntry, ACKNOWLEDGED_BREAKS_PATH } from './acknowledged.js';
import { brief } from './escape.js';
import { fixHint } from './fix-hints.js';
import { refusalDetail } from './refusal.js';

/** Where a finding happened: the direction, the journey step, the baseline of a matrix. */
export function where(f: Finding): string {
  const parts: string[] = [f.direction];
  if (f.step) parts.push(`step ${f.step}${f.occurrence ? ` (${f.occurrence})` : ''}`);
  if (f.baseline) parts.push(`baseline ${f.baseline}`);
  if (f.explore) parts.push(exploreName(f.explore));
  return parts.join(' · ');
}

/** `explore seed 12`, or `journey without:ackOutput` for a capability-off journey (it has no seed to replay). */
export function exploreName(e: NonNullable<Finding['explore']>): string {
  return e.capabilityOff ? `journey ${e.moves[0] ?? ''}` : `explore seed ${e.seed}`;
}

/**
 * The evidence a reader needs, one line each: the refusal in words, then the
 * expected and observed values a rule recorded. A value the rule did not
 * record is not printed ("expected: (absent)" would claim it looked).
 */
export function evidenceLines(f: Finding, max = 160): Array<{ kind: 'detail' | 'expected' | 'observed'; text: string }> {
  const lines: Array<{ kind: 'detail' | 'expected' | 'observed'; text: string }> = [];
  const refusal = refusalDetail(f);
  if (refusal) lines.push({ kind: 'detail', text: `refused: ${refusal}` });
  // null on one side means absent; on both sides it says nothing, and is left out.
  const { before, after } = f.evidence;
  const carries = (before ?? null) !== null || (after ?? null) !== null;
  const shown = (v: unknown) => (v === null || v === undefined ? '(absent)' : brief(v, max));
  if (carries && 'before' in f.evidence) lines.push({ kind: 'expected', text: `expected: ${shown(before)}` });
  if (carries && 'after' in f.evidence) lines.push({ kind: 'observed', text: `observed: ${shown(after)}` });
  return lines;
}

export function fixLine(f: Finding): string {
  const hint = fixHint(f.ruleId);
  const rule = ruleEntry(f.ruleId)?.compatibilityRule;
  return `fix${rule ? ` (Rule ${rule})` : ''}: ${hint.fix}; see ${hint.docs}`;
}

/** The acknowledgement entry for `f` as one line of JSON, ready to paste into the array; it expires 90 days after `today`. */
export function pasteableAcknowledgement(f: Finding, today: string, directions?: readonly string[]): string {
  return JSON.stringify(acknowledgementEntry(f, today, directions));
}

export { ACKNOWLEDGED_BREAKS_PATH };

/** One line for a finding that a second walk of the journeys did not repeat. */
export function notReproducedLine(f: Finding): string {
  const at = [f.direction, f.step ? `step ${f.step}` : undefined, f.baseline, f.explore ? exploreName(f.explore) : undefined].filter(Boolean).join(', ');
  return `${f.ruleId} (${at}) ${f.subject}: ${f.message} — seen in one walk of the journeys, not in a second walk of the same builds; not failing (a busy machine can cause this, e.g. an old build's pong deadline firing)`;
}
