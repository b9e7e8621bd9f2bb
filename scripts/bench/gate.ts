/**
 * Gate section: wall time of `termwire compat --format json` in a throwaway
 * clone of this repository's HEAD with two release commits (v0.0.1, v0.0.2)
 * and an uncommitted change to code both roles run, contenders interleaved round by round, medians
 * reported as ratios to each other:
 *   cold    a fresh, empty --cache-dir: extract, install (node_modules reused), build baseline, then as cached
 *   cached  the same --cache-dir again: build working tree, static pass, the journeys (4 script terminal, old × old
 *           of them from the reference cache, + PTY, restart, byte-stream and lifetime passes), the decoders and
 *           the journeys with one capability off
 *   static  --static-only with the baseline cached: build working tree, manifest diff
 *   matrix  --against last:2 with both releases cached
 *   build   `npm run build` of the working tree alone, which every gate run repeats
 *
 * How each grows with N releases in a matrix (--against last:N); the working
 * tree is built once per run whatever N is:
 *   static  + N manifest diffs (milliseconds each)
 *   cold    + N × (extract + install + build baseline)
 *   cached  + N × journeys (both builds' peers started and 6 pairings run per release)
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { GateReport } from '../../compat/report/model.js';
import { median } from './lib/measure.js';
import type { Row } from './lib/row.js';

export const name = 'gate';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
/** The issue's target: a cached gate run, all pairings, under this many seconds. */
const CACHED_BUDGET_SECONDS = 10;
const ROUNDS = 3;
const COLD_ROUNDS = 2;
const PAIRINGS = { script: 4, pty: 2 } as const;
/** The progress line the gate prints as it starts a pairing: `journey (pty): old client 0.2.0 × new host 0.3.0`. */
const PAIRING_START = / journey(?: \(pty\))?: (?:old|new) client (?:\(working tree\)|\S+) × (?:old|new) host /;
/** A stuck gate must fail the bench, not hang it. */
const COMMAND_TIMEOUT_MS = 10 * 60_000;
const OUTPUT_TAIL_LINES = 40;
const GIT_IDENTITY = ['-c', 'user.name=termwire bench', '-c', 'user.email=bench@termwire.invalid', '-c', 'commit.gpgsign=false'];
const GIT_DATES = { GIT_AUTHOR_DATE: '2025-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2025-01-01T00:00:00Z' };

/** A line the command wrote to stderr, with seconds since it started. */
interface ProgressLine {
  readonly atS: number;
  readonly text: string;
}

interface Completed {
  readonly seconds: number;
  /** CPU the command and every process it started used (childrenCpuSeconds), where /proc tells. */
  readonly cpuSeconds?: number;
  readonly stdout: string;
  readonly progress: readonly ProgressLine[];
}

/**
 * CPU seconds (user + system) of this process's ended children and of all they
 * waited for in turn (Linux /proc/self/stat cutime and cstime, in ticks of
 * 1/100 s): for a gate run, the gate, its peers and their shells. Wall time on
 * a shared runner swings with its neighbours; CPU much less. Undefined without /proc.
 */
function childrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // After the command name, which may itself hold ') '.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

function tail(text: string): string {
  return text.trimEnd().split('\n').slice(-OUTPUT_TAIL_LINES).join('\n');
}

/** Runs a command to its end; anything but exit 0 throws with its output, so a failed run is never recorded as a time. */
function runTimed(cwd: string, command: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<Completed> {
  return new Promise((resolveRun, reject) => {
    const start = performance.now();
    const cpuBefore = childrenCpuSeconds();
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: COMMAND_TIMEOUT_MS });
    const progress: ProgressLine[] = [];
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const atS = (performance.now() - start) / 1000;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const text of lines) progress.push({ atS, text });
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const seconds = (performance.now() - start) / 1000;
      const cpuAfter = childrenCpuSeconds();
      const cpu = cpuBefore === undefined || cpuAfter === undefined ? {} : { cpuSeconds: cpuAfter - cpuBefore };
      if (code === 0) return resolveRun({ seconds, ...cpu, stdout, progress });
      const how = code === null ? `was killed by ${signal} (timeout ${COMMAND_TIMEOUT_MS} ms)` : `exited ${code}`;
      reject(new Error(`bench gate: \`${command} ${args.join(' ')}\` in ${cwd} ${how} after ${seconds.toFixed(1)} s.\nstdout (last ${OUTPUT_TAIL_LINES} lines):\n${tail(stdout)}\nstderr (last ${OUTPUT_TAIL_LINES} lines):\n${tail(stderr)}`));
    });
  });
}

const git = (cwd: string, args: readonly string[]) => runTimed(cwd, 'git', args, GIT_DATES);
const commit = (cwd: string, args: readonly string[]) => git(cwd, [...GIT_IDENTITY, 'commit', '-q', '--no-verify', ...args]);

/** A clone of HEAD with releases v0.0.1 and v0.0.2 (tagged, and with `release: vX.Y.Z` subjects), built, plus an uncommitted change. */
async function prepareClone(scratch: string): Promise<string> {
  const clone = join(scratch, 'repo');
  const head = (await git(REPO_ROOT, ['rev-parse', '--verify', 'HEAD'])).stdout.trim();
  await git(scratch, ['clone', '-q', REPO_ROOT, clone]);
  await git(clone, ['checkout', '-q', '--detach', head]);
  await symlink(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  // `node_modules/` in .gitignore matches a directory, not a link: unexcluded, the link would count as an untracked file.
  await mkdir(join(clone, '.git', 'info'), { recursive: true });
  await appendFile(join(clone, '.git', 'info', 'exclude'), '\nnode_modules\n');
  await runTimed(clone, 'npm', ['run', 'build']);
  await commit(clone, ['--allow-empty', '-m', 'release: v0.0.1']);
  await git(clone, ['tag', 'v0.0.1']);
  await appendFile(join(clone, 'README.md'), '\n<!-- bench: a change between releases -->\n');
  await commit(clone, ['-a', '-m', 'bench: a change between releases']);
  await commit(clone, ['--allow-empty', '-m', 'release: v0.0.2']);
  await git(clone, ['tag', 'v0.0.2']);
  // In code both roles' peers run (the codec), so every pairing is walked: a change to one role alone walks fewer (compat/journey/same-code.ts).
  await appendFile(join(clone, 'src', 'codec', 'header.ts'), '\n// bench: uncommitted, so the working tree differs from every release\n');
  return clone;
}

interface Expect {
  readonly baselines: number;
  readonly staticOnly: boolean;
}

/** One gate run, checked to be the run it claims to be (exit 0, compatible, baseline count, static or not). */
async function runGate(clone: string, cacheDir: string, extraArgs: readonly string[], expect: Expect): Promise<Completed> {
  const args = ['bin/termwire.js', 'compat', '--format', 'json', '--cache-dir', cacheDir, ...extraArgs];
  const run = await runTimed(clone, process.execPath, args);
  let report: GateReport;
  try {
    report = JSON.parse(run.stdout) as GateReport;
  } catch {
    throw new Error(`bench gate: \`termwire ${args.slice(1).join(' ')}\` exited 0 but printed no JSON report:\n${tail(run.stdout)}`);
  }
  if (report.status !== 'compatible' || report.baselines.length !== expect.baselines || report.staticOnly !== expect.staticOnly) {
    throw new Error(`bench gate: \`termwire ${args.slice(1).join(' ')}\` is not the run measured (want compatible, ${expect.baselines} baseline(s), staticOnly ${expect.staticOnly}):\n${tail(run.stdout)}`);
  }
  return run;
}

/** Seconds of the gate's finished steps whose label starts with `label`, as its progress printed them, summed over baselines. */
function stepSeconds(run: Completed, label: string): number {
  const done = /^✓ (.+?)(?:: .*)? \((\d+(?:\.\d+)?)s\)$/;
  const matches = run.progress.map((line) => done.exec(line.text)).filter((m) => m?.[1]?.startsWith(label));
  if (matches.length === 0) throw new Error(`bench gate: the gate printed no finished step '${label}':\n${run.progress.map((l) => l.text).join('\n')}`);
  return matches.reduce((sum, m) => sum + Number(m![2]), 0);
}

/**
 * Seconds spent in script-terminal and in PTY pairings of a one-release run,
 * from when their progress lines arrived: the gate announces each pairing as
 * it starts it, and the journeys step ends after the last.
 */
function pairingSeconds(run: Completed): { script: number; pty: number } {
  const marks = run.progress.filter((l) => PAIRING_START.test(l.text) || l.text.startsWith('✓ journeys against '));
  // Old × old from the reference cache is never started, so a cached run starts one script pairing fewer.
  const reused = run.progress.some((l) => l.text.includes('reused from the reference cache')) ? 1 : 0;
  const totals = { script: 0, pty: 0 };
  const counts = { script: 0, pty: 0 };
  marks.forEach((mark, i) => {
    const next = marks[i + 1];
    if (!next || mark.text.startsWith('✓')) return;
    const kind = mark.text.includes('journey (pty): ') ? 'pty' : 'script';
    totals[kind] += next.atS - mark.atS;
    counts[kind]++;
  });
  if (counts.script !== PAIRINGS.script - reused || counts.pty !== PAIRINGS.pty) {
    throw new Error(`bench gate: expected ${PAIRINGS.script - reused} script and ${PAIRINGS.pty} PTY pairings in the progress, saw ${counts.script} and ${counts.pty}:\n${marks.map((m) => m.text).join('\n')}`);
  }
  return totals;
}

interface Runs {
  readonly cold: Completed[];
  readonly static: Completed[];
  readonly cached: Completed[];
  readonly matrix: Completed[];
  readonly build: Completed[];
}

function rows(runs: Runs): Row[] {
  const seconds = (list: readonly Completed[]) => median(list.map((r) => r.seconds));
  const [cold, staticPass, cached, matrix, build] = [runs.cold, runs.static, runs.cached, runs.matrix, runs.build].map(seconds) as [number, number, number, number, number];
  const inCached = (of: (run: Completed) => number) => median(runs.cached.map(of));
  const ofCached = (value: number) => ({ value, unit: ' s', ratio: value / cached, baseline: 'cached run' });
  const baselineBuild = median(runs.cold.map((r) => stepSeconds(r, 'extract') + stepSeconds(r, 'install baseline') + stepSeconds(r, 'build baseline')));
  return [
    { section: name, name: 'cold: empty cache (extract, install, build baseline + as cached)', value: cold, unit: ' s', note: `median of ${COLD_ROUNDS}; N releases: + N × (extract + install + build baseline)` },
    { section: name, name: 'cached: same cache (build working tree, static pass, journeys, decoders, capabilities off)', value: cached, unit: ' s', ratio: cached / cold, baseline: 'cold run', note: 'N releases: + N × journeys' },
    { section: name, name: 'static pass alone (--static-only, baseline cached)', ...ofCached(staticPass), note: 'N releases: + N manifest diffs' },
    { section: name, name: 'matrix --against last:2, both cached', ...ofCached(matrix), note: 'N releases: build once + N × journeys' },
    { section: name, name: '`npm run build` of the working tree alone', ...ofCached(build), note: 'share of a cached run; repeated once per run, whatever N' },
    { section: name, name: `cached run, every pairing walked, within ${CACHED_BUDGET_SECONDS} s`, value: cached, unit: ' s', ratio: CACHED_BUDGET_SECONDS / cached, baseline: `${CACHED_BUDGET_SECONDS} s budget (issue)`, target: 1 },
    ...(runs.cached.every((r) => r.cpuSeconds !== undefined)
      ? [{ section: name, name: 'in cached: CPU of the gate and every process it started (user + system)', value: inCached((r) => r.cpuSeconds!), unit: ' s', ratio: inCached((r) => r.cpuSeconds! / r.seconds), baseline: 'cached run (cores kept busy)', note: 'what the wall time is made of on a machine of its own; a budget below CPU / cores cannot be met' }]
      : []),
    { section: name, name: 'in cached: step "build working tree"', ...ofCached(inCached((r) => stepSeconds(r, 'build working tree'))), note: 'diagnostic' },
    { section: name, name: 'in cached: step "journeys" (peers + every pass)', ...ofCached(inCached((r) => stepSeconds(r, 'journeys against'))), note: 'diagnostic' },
    { section: name, name: 'in cached: script-terminal pairings (old × old from the reference cache)', ...ofCached(inCached((r) => pairingSeconds(r).script)), note: 'diagnostic, from progress-line times' },
    { section: name, name: `in cached: ${PAIRINGS.pty} PTY pairings`, ...ofCached(inCached((r) => pairingSeconds(r).pty)), note: 'diagnostic, from progress-line times' },
    { section: name, name: 'in cold: steps extract + install + build baseline', value: baselineBuild, unit: ' s', ratio: baselineBuild / cold, baseline: 'cold run', note: 'diagnostic' },
  ];
}

export async function run(): Promise<Row[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'termwire-bench-gate-'));
  try {
    const clone = await prepareClone(scratch);
    const cache = await mkdtemp(join(scratch, 'cache-'));
    const one = { baselines: 1, staticOnly: false };
    // Untimed: caches both releases, and warms disk and compiler caches for every contender alike.
    await runGate(clone, cache, ['--against', 'last:2'], { baselines: 2, staticOnly: false });
    const runs: Runs = { cold: [], static: [], cached: [], matrix: [], build: [] };
    for (let round = 0; round < ROUNDS; round++) {
      if (round < COLD_ROUNDS) {
        const fresh = await mkdtemp(join(scratch, 'cold-'));
        runs.cold.push(await runGate(clone, fresh, [], one));
        await rm(fresh, { recursive: true, force: true });
      }
      runs.static.push(await runGate(clone, cache, ['--static-only'], { baselines: 1, staticOnly: true }));
      runs.cached.push(await runGate(clone, cache, [], one));
      runs.matrix.push(await runGate(clone, cache, ['--against', 'last:2'], { baselines: 2, staticOnly: false }));
      runs.build.push(await runTimed(clone, 'npm', ['run', 'build']));
    }
    const result = rows(runs);
    const cached = median(runs.cached.map((r) => r.seconds));
    console.error(`gate: cached run ${cached.toFixed(1)} s against the ${CACHED_BUDGET_SECONDS} s target: ${cached < CACHED_BUDGET_SECONDS ? 'met' : 'MISSED'}`);
    return result;
  } finally {
    // rm does not follow links: the node_modules links in the clone and cache entries go, the repo's node_modules stays.
    await rm(scratch, { recursive: true, force: true });
  }
}
