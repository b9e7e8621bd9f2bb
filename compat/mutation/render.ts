import { describeMutant } from './mutant.js';
import type { MutationRun } from './results-file.js';
import { scoreLine, tally } from './score.js';

/** The text report: survivors and errors for triage, the cost, and the score as the last line. */
export function renderMutationRun(run: MutationRun): string {
  const s = tally(run.results);
  const lines: string[] = [];
  const sampled = run.sampleSize === run.mutantsInSource ? `all ${run.mutantsInSource} mutants` : `a sample of ${run.sampleSize} of ${run.mutantsInSource} mutants, seed ${run.seed}`;
  lines.push(`mutation: ${sampled}${run.shard ? `, shard ${run.shard.index}/${run.shard.count} (${run.results.length} of them)` : ''}, the gate against ${run.against}`);
  const list = (title: string, status: string, withDetail: boolean) => {
    const rs = run.results.filter((r) => r.status === status);
    if (!rs.length) return;
    lines.push(`${title} (${rs.length}):`);
    for (const r of rs) lines.push(`  ${describeMutant(r.mutant)}${withDetail && r.detail ? `\n    ${r.detail}` : ''}\n    id ${r.mutant.id}`);
  };
  list('survived, for triage', 'survived', false);
  list('errors: the gate could not judge these, neither killed nor survived', 'error', true);
  const costs = run.results.flatMap((r) => (r.cpuSeconds !== undefined ? [r.cpuSeconds] : []));
  if (costs.length) {
    const total = costs.reduce((a, b) => a + b, 0);
    lines.push(`cost: ${(total / costs.length).toFixed(1)} CPU-s per mutant over ${costs.length} gate run(s)${run.unmutatedCpuSeconds !== undefined ? `, plus ${run.unmutatedCpuSeconds.toFixed(1)} CPU-s for the unmutated tree` : ''}`);
  }
  if (s.errors) lines.push(`${s.errors} error(s), not counted in the score`);
  lines.push(run.shard ? `shard ${run.shard.index}/${run.shard.count}: ${s.killed} killed, ${s.survived} survived, ${s.equivalent} equivalent, ${s.errors} error(s); join all shards with: npm run mutation -- merge <files>` : scoreLine(s));
  return lines.join('\n') + '\n';
}
