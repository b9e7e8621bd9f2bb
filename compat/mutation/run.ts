import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '../progress.js';
import type { Shard } from '../shard.js';
import { workingTreeId } from '../baseline/working-tree.js';
import { enumerateMutants } from './enumerate.js';
import { EQUIVALENTS_FILE, loadEquivalents, matchEquivalents } from './equivalents.js';
import { runGate } from './gate-run.js';
import { judgeMutant } from './judge.js';
import { describeMutant, type WireMutant } from './mutant.js';
import type { MutationRun } from './results-file.js';
import { sampleMutants } from './sample.js';
import type { MutantResult } from './score.js';
import { mutantsOfShard } from './shard.js';
import { createScratch } from './scratch.js';

export interface MutationOptions {
  readonly root: string;
  readonly against: string;
  /** Mutants to sample; every mutant when absent. */
  readonly sample?: number;
  readonly seed: number;
  readonly shard?: Shard;
  /** Run exactly these mutant ids (triage of a survivor); no sampling. */
  readonly only?: readonly string[];
  /** Per gate run. */
  readonly timeoutMs: number;
  readonly progress: Progress;
}

/** Why the run could not produce a score at all (exit 2). */
export class CannotMutate extends Error {}

/** The mutants this run is asked about, after sampling and sharding. */
export async function chooseMutants(opts: Pick<MutationOptions, 'root' | 'sample' | 'seed' | 'shard' | 'only' | 'progress'>): Promise<{ all: WireMutant[]; sample: WireMutant[]; mine: WireMutant[] }> {
  const step = opts.progress.step('enumerate mutants (Stryker instrumenter)');
  const all = await enumerateMutants(opts.root, (m) => opts.progress.note(`stryker: ${m}`));
  step.done(`${all.length} mutants`);
  let sample: WireMutant[];
  if (opts.only?.length) {
    const byId = new Map(all.map((m) => [m.id, m]));
    const unknown = opts.only.filter((id) => !byId.has(id));
    if (unknown.length) throw new CannotMutate(`no such mutant in today's source: ${unknown.join(', ')} (ids are printed with each survivor)`);
    sample = opts.only.map((id) => byId.get(id)!);
  } else {
    sample = sampleMutants(all, opts.sample ?? all.length, opts.seed);
  }
  return { all, sample, mine: opts.shard ? mutantsOfShard(sample, opts.shard) : sample };
}

/**
 * Runs the gate once on the unmutated tree (it must be green, or every mutant
 * would count as killed), then once per mutant of this shard, each spliced
 * alone into a scratch checkout. Equivalent mutants are not run.
 */
export async function runMutation(opts: MutationOptions): Promise<MutationRun> {
  const { all, sample, mine } = await chooseMutants(opts);
  const equivalents = matchEquivalents(loadEquivalents(join(opts.root, EQUIVALENTS_FILE)), all);
  for (const e of equivalents.stale) opts.progress.note(`${EQUIVALENTS_FILE}: ${e.file}:${e.line} ${e.mutator} ${JSON.stringify(e.replacement)} names no mutant of today's source; review it again`);
  const tree = await workingTreeId(opts.root);
  const logs = join(opts.root, '.termwire', 'mutation', 'runs');
  mkdirSync(logs, { recursive: true });
  const scratch = await createScratch(opts.root);
  try {
    const gateOn = (name: string) => runGate(scratch.dir, { root: opts.root, against: opts.against, timeoutMs: opts.timeoutMs, reportFile: join(logs, `${name}.json`), logFile: join(logs, `${name}.log`) });
    const cleanStep = opts.progress.step(`gate on the unmutated tree against ${opts.against}`);
    const clean = await gateOn('unmutated');
    if (clean.exitCode !== 0) {
      cleanStep.fail(`exit ${clean.exitCode ?? 'none (timed out)'}`);
      throw new CannotMutate(
        clean.exitCode === 1
          ? `the unmutated tree is already red against ${opts.against} (${clean.report?.findings.length ?? '?'} findings): every mutant would count as killed; make the gate green first (report: ${join(logs, 'unmutated.json')})`
          : `the gate cannot compare the unmutated tree: ${clean.report?.error?.message.split('\n')[0] ?? clean.logTail} (log: ${join(logs, 'unmutated.log')})`,
      );
    }
    const release = clean.report?.baselines.map((b) => b.label).join(', ') || opts.against;
    cleanStep.done(`green against ${release}${clean.cpuSeconds !== undefined ? `, ${clean.cpuSeconds.toFixed(1)} CPU-s` : ''}`);
    const results: MutantResult[] = [];
    const step = opts.progress.step(`gate on ${mine.length} mutant(s)`);
    for (const [i, m] of mine.entries()) {
      const why = equivalents.why.get(m.id);
      if (why !== undefined) {
        results.push({ mutant: m, status: 'equivalent', detail: why });
      } else {
        step.update(`[${i + 1}/${mine.length}] ${describeMutant(m)}`);
        const restore = scratch.apply(m);
        try {
          const expected = await workingTreeId(scratch.dir);
          const name = m.id.replace(/[^A-Za-z0-9._-]+/g, '_');
          results.push(judgeMutant(m, await gateOn(name), expected, opts.timeoutMs));
        } finally {
          restore();
        }
      }
      const r = results.at(-1)!;
      opts.progress.note(`[${i + 1}/${mine.length}] ${r.status}${r.detail && r.status !== 'equivalent' ? ` (${r.detail})` : ''}${r.cpuSeconds !== undefined ? ` ${r.cpuSeconds.toFixed(1)} CPU-s` : ''}: ${describeMutant(m)}`);
    }
    step.done();
    return {
      format: 'termwire-mutation/1',
      tree,
      against: release,
      seed: opts.seed,
      sampleSize: sample.length,
      mutantsInSource: all.length,
      ...(opts.shard ? { shard: opts.shard } : {}),
      ...(clean.cpuSeconds !== undefined ? { unmutatedCpuSeconds: clean.cpuSeconds } : {}),
      results,
    };
  } finally {
    scratch.remove();
  }
}
