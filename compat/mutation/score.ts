import type { WireMutant } from './mutant.js';

/**
 * What the gate said about one mutant. killed: it exited 1 (a finding).
 * survived: exited 0. error: it could not compare (exit 2, a failed build, a
 * timeout), which proves nothing either way. equivalent: reviewed as invisible
 * to every peer, so not run.
 */
export type MutantStatus = 'killed' | 'survived' | 'error' | 'equivalent';

export interface MutantResult {
  readonly mutant: WireMutant;
  readonly status: MutantStatus;
  /** killed: the rule ids of the findings; error: why; equivalent: the reviewer's reason. */
  readonly detail?: string;
  /** CPU of the gate run and everything it started (build, peers), when measured. */
  readonly cpuSeconds?: number;
}

export interface Score {
  readonly killed: number;
  readonly survived: number;
  readonly equivalent: number;
  readonly errors: number;
  /** Killed plus survived: the mutants the gate actually judged. */
  readonly judged: number;
  /** killed / judged, or undefined when nothing was judged. */
  readonly percent: number | undefined;
}

export function tally(results: readonly MutantResult[]): Score {
  const count = (s: MutantStatus) => results.filter((r) => r.status === s).length;
  const killed = count('killed');
  const survived = count('survived');
  const judged = killed + survived;
  return { killed, survived, equivalent: count('equivalent'), errors: count('error'), judged, percent: judged ? (100 * killed) / judged : undefined };
}

/** The run's last line. Errors are not in it: they are neither killed nor survived, and are printed on the line above. */
export function scoreLine(s: Score): string {
  const percent = s.percent === undefined ? 'n/a' : `${(Math.floor(s.percent * 10) / 10).toFixed(1)}%`;
  return `mutation score: ${s.killed} of ${s.judged} killed (${percent}), ${s.equivalent} equivalent, ${s.survived} survived`;
}
