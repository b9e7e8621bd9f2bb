import type { GateVerdict } from './gate-run.js';
import type { WireMutant } from './mutant.js';
import type { MutantResult } from './score.js';

/**
 * What one gate run says about one mutant. Exit 1 kills it, exit 0 lets it
 * survive, anything else proves nothing (an error). Either verdict counts only
 * when the gate says it built `expectedTree`, the tree with this mutant in it:
 * a build reused from another tree must never decide a mutant.
 */
export function judgeMutant(mutant: WireMutant, verdict: GateVerdict, expectedTree: string, timeoutMs: number): MutantResult {
  const cost = verdict.cpuSeconds !== undefined ? { cpuSeconds: verdict.cpuSeconds } : {};
  const error = (detail: string): MutantResult => ({ mutant, status: 'error', detail, ...cost });
  if (verdict.timedOut) return error(`the gate did not finish within ${Math.round(timeoutMs / 1000)} s`);
  if (verdict.exitCode !== 0 && verdict.exitCode !== 1) {
    const why = verdict.report?.error?.message.split('\n')[0] ?? verdict.logTail.split('\n').pop() ?? 'no report';
    return error(`the gate could not compare (exit ${verdict.exitCode ?? 'signal'}): ${why}`);
  }
  const judged = verdict.report?.current?.commit;
  if (!judged?.endsWith(`+tree:${expectedTree}`)) return error(`the gate judged ${judged ?? 'an unnamed build'}, not the mutated tree ${expectedTree}`);
  if (verdict.exitCode === 0) return { mutant, status: 'survived', ...cost };
  const rules = [...new Set((verdict.report?.findings ?? []).map((f) => f.ruleId))].sort();
  return { mutant, status: 'killed', detail: rules.join(', ') || 'exit 1', ...cost };
}
