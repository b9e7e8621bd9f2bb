import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { repoRoot } from '../baseline/git.js';
import { installSignalCleanup } from '../cleanup.js';
import { isCompatError } from '../errors.js';
import { createProgress } from '../progress.js';
import { parseShard } from '../shard.js';
import { EquivalentsFileError } from './equivalents.js';
import { describeMutant } from './mutant.js';
import { type MutationRun, MutationFileError, mergeMutationRuns, readMutationRun } from './results-file.js';
import { renderMutationRun } from './render.js';
import { CannotMutate, chooseMutants, runMutation } from './run.js';
import { tally } from './score.js';

const HELP = `Usage: npm run mutation -- [options]
       npm run mutation -- merge [--json] [--threshold P] <shard result.json>...

Measures the gate: mutates the wire-relevant production source (src/codec,
src/capabilities, src/host, src/client, src/delivery, src/transport) with
StrykerJS's mutators, splices each mutant alone into a scratch checkout, and
runs \`termwire compat\` (every default pass) from this checkout's build on it.
Exit 1 from the gate kills the mutant, exit 0 lets it survive, exit 2 (or a
timeout) is an error that counts as neither. Mutants reviewed as equivalent in
compat/mutation/equivalent-mutants.json are not run and not counted.

Options:
  --sample <n>        run a seeded sample of n mutants, spread over the folders in
                      proportion to their mutants (default: every mutant)
  --seed <s>          the sample's seed (default: random, printed)
  --shard <i/n>       run only shard i of n of the sample (mutant k goes to shard
                      (k mod n) + 1); needs --output, join the files with merge
  --mutant <id>       run this mutant only (repeatable); ids are printed with survivors
  --list              print the chosen mutants and stop (runs no gate)
  --against <spec>    the release to compare against (default latest, as the gate)
  --threshold <p>     exit 1 when the score is below p percent
  --timeout <s>       stop a gate run after s seconds and count an error (default 1800: a red run under load waits out deadlines)
  --output <file>     also write the result as JSON (what merge reads)
  --json              print the result as JSON instead of text
  -h, --help          show this help

Each gate run costs what a \`termwire compat\` run costs (tens of CPU-seconds),
plus one run on the unmutated tree, which must be green. Progress goes to
stderr, NO_COLOR is honoured; the last line of the text report is the score:
  mutation score: K of M killed (P%), E equivalent, S survived
where M counts killed and survived mutants only.
Exit codes: 0 score printed, 1 score below --threshold, 2 could not run.`;

function wholeNumber(flag: string, text: string, max = 0xffffffff): number {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new CannotMutate(`${flag} ${JSON.stringify(text)}: expected a whole number from 0 to ${max}`);
  return Number(text);
}

function percent(flag: string, text: string): number {
  const p = Number(text);
  if (text.trim() === '' || !Number.isFinite(p) || p < 0 || p > 100) throw new CannotMutate(`${flag} ${JSON.stringify(text)}: expected a percentage from 0 to 100`);
  return p;
}

/** Exit code of a finished, unsharded score: 2 when nothing was judged, 1 below the threshold. */
export function exitCodeOf(run: MutationRun, threshold: number | undefined): 0 | 1 | 2 {
  const s = tally(run.results);
  if (s.judged === 0 && s.errors > 0) return 2;
  if (threshold !== undefined && (s.percent ?? 0) < threshold) return 1;
  return 0;
}

function deliver(run: MutationRun, json: boolean, output: string | undefined): void {
  if (output !== undefined) writeFileSync(output, JSON.stringify(run, null, 2) + '\n');
  process.stdout.write(json ? JSON.stringify(run, null, 2) + '\n' : renderMutationRun(run));
}

async function merge(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { json: { type: 'boolean', default: false }, threshold: { type: 'string' }, output: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } });
  if (values.help) return process.stdout.write(HELP + '\n'), 0;
  const threshold = values.threshold !== undefined ? percent('--threshold', values.threshold) : undefined;
  const run = mergeMutationRuns(positionals.map(readMutationRun));
  deliver(run, values.json, values.output);
  return exitCodeOf(run, threshold);
}

export async function main(args: string[]): Promise<number> {
  try {
    if (args[0] === 'merge') return await merge(args.slice(1));
    const { values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        sample: { type: 'string' },
        seed: { type: 'string' },
        shard: { type: 'string' },
        mutant: { type: 'string', multiple: true },
        list: { type: 'boolean', default: false },
        against: { type: 'string', default: 'latest' },
        threshold: { type: 'string' },
        timeout: { type: 'string', default: '1800' },
        output: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) return process.stdout.write(HELP + '\n'), 0;
    const shard = values.shard !== undefined ? parseShard(values.shard) : undefined;
    if (shard && values.output === undefined && !values.list) throw new CannotMutate('--shard writes a part of the score: give --output <file> and join the shards with merge');
    if (shard && values.threshold !== undefined) throw new CannotMutate('--threshold judges the whole score: give it to merge, not to a shard');
    if (values.mutant?.length && (values.sample !== undefined || shard)) throw new CannotMutate('--mutant names the mutants to run: it takes no --sample or --shard');
    const threshold = values.threshold !== undefined ? percent('--threshold', values.threshold) : undefined;
    const progress = createProgress({ stream: process.stderr });
    const seed = values.seed !== undefined ? wholeNumber('--seed', values.seed) : Math.floor(Math.random() * 0x7fffffff);
    const base = {
      root: await repoRoot(process.cwd()),
      seed,
      progress,
      ...(values.sample !== undefined ? { sample: wholeNumber('--sample', values.sample) } : {}),
      ...(shard ? { shard } : {}),
      ...(values.mutant?.length ? { only: values.mutant } : {}),
    };
    if (!values.mutant?.length) progress.note(`seed ${seed} (the same --seed and --sample draw the same mutants)`);
    if (values.list) {
      const { all, mine } = await chooseMutants(base);
      process.stdout.write(mine.map((m) => `${describeMutant(m)}\n    id ${m.id}\n`).join('') + `${mine.length} of ${all.length} mutants\n`);
      return 0;
    }
    installSignalCleanup((signal) => process.stderr.write(`\nmutation: ${signal}: removing the scratch checkout\n`));
    const run = await runMutation({ ...base, against: values.against, timeoutMs: wholeNumber('--timeout', values.timeout, 86_400) * 1000 });
    deliver(run, values.json, values.output);
    return shard ? 0 : exitCodeOf(run, threshold);
  } catch (e) {
    const known = e instanceof CannotMutate || e instanceof EquivalentsFileError || e instanceof MutationFileError || isCompatError(e) || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`mutation: ${known ? (e as Error).message : `internal error: ${(e as Error)?.stack ?? e}`} (npm run mutation -- --help lists the options)\n`);
    return 2;
  }
}
