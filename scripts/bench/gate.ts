/**
 * Gate section: `termwire compat --format json` in a throwaway clone of this
 * repository's HEAD with two release commits of its own tree (the next two
 * patch versions past the newest real release, so they are the newest) and an
 * uncommitted change, contenders interleaved round by round, medians reported
 * as ratios to each other and to the budgets. CPU-seconds (the gate and every
 * process it started) are the budget; wall time is printed beside them.
 *   cold      a fresh, empty --cache-dir: extract, install (node_modules reused), build baseline, then as cached
 *   cached    the same --cache-dir again, a change to code both roles run: every pass, decoders, capabilities off
 *   docs      a README change only: every role runs the release's code, so nothing is walked
 *   red       a planted break in both roles (credit counted in KiB): walked, confirmed per root cause
 *   static    --static-only with the baseline cached: build working tree, manifest diff
 *   matrix    --against last:2 with both releases cached
 *   build     `npm run build` of the working tree alone, which every gate run repeats
 *
 * How each grows with N releases in a matrix (--against last:N); the working
 * tree is built once per run whatever N is:
 *   static  + N manifest diffs (milliseconds each)
 *   cold    + N × (extract + install + build baseline)
 *   cached  + N × journeys
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import semver from 'semver';
import { listReleases, type Release } from '../../compat/baseline/resolve.js';
import type { GateReport } from '../../compat/report/model.js';
import { median } from './lib/measure.js';
import type { Row } from './lib/row.js';

export const name = 'gate';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const ROUNDS = 3;
const COLD_ROUNDS = 2;
/** A red run walks, confirms and shrinks: minutes, so one round. */
const RED_ROUNDS = 1;
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

/** Runs a command to its end; any exit but those expected (0) throws with its output, so a failed run is never recorded as a time. */
function runTimed(cwd: string, command: string, args: readonly string[], env: Readonly<Record<string, string>> = {}, expectedExits: readonly number[] = [0]): Promise<Completed> {
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
      if (code !== null && expectedExits.includes(code)) return resolveRun({ seconds, ...cpu, stdout, progress });
      const how = code === null ? `was killed by ${signal} (timeout ${COMMAND_TIMEOUT_MS} ms)` : `exited ${code}`;
      reject(new Error(`bench gate: \`${command} ${args.join(' ')}\` in ${cwd} ${how} after ${seconds.toFixed(1)} s.\nstdout (last ${OUTPUT_TAIL_LINES} lines):\n${tail(stdout)}\nstderr (last ${OUTPUT_TAIL_LINES} lines):\n${tail(stderr)}`));
    });
  });
}

const git = (cwd: string, args: readonly string[]) => runTimed(cwd, 'git', args, GIT_DATES);
const commit = (cwd: string, args: readonly string[]) => git(cwd, [...GIT_IDENTITY, 'commit', '-q', '--no-verify', ...args]);

/**
 * A clone of HEAD with two releases of HEAD's own code (tagged, and with
 * `release: vX.Y.Z` subjects), built, plus an uncommitted change. They are
 * numbered past the newest real release: below it, the gate would judge
 * against that release's code instead, and a docs-only change would walk.
 */
async function prepareClone(scratch: string): Promise<string> {
  const clone = join(scratch, 'repo');
  const head = (await git(REPO_ROOT, ['rev-parse', '--verify', 'HEAD'])).stdout.trim();
  await git(scratch, ['clone', '-q', REPO_ROOT, clone]);
  const [first, second] = nextPatchVersions(await listReleases(clone, true));
  await git(clone, ['checkout', '-q', '--detach', head]);
  await symlink(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  // `node_modules/` in .gitignore matches a directory, not a link: unexcluded, the link would count as an untracked file.
  await mkdir(join(clone, '.git', 'info'), { recursive: true });
  await appendFile(join(clone, '.git', 'info', 'exclude'), '\nnode_modules\n');
  await runTimed(clone, 'npm', ['run', 'build']);
  await commit(clone, ['--allow-empty', '-m', `release: v${first}`]);
  await git(clone, ['tag', `v${first}`]);
  await appendFile(join(clone, 'README.md'), '\n<!-- bench: a change between releases -->\n');
  await commit(clone, ['-a', '-m', 'bench: a change between releases']);
  await commit(clone, ['--allow-empty', '-m', `release: v${second}`]);
  await git(clone, ['tag', `v${second}`]);
  await uncommitted(clone, 'code');
  return clone;
}

/** The two patch versions after the newest release (0.0.1 and 0.0.2 before any). */
export function nextPatchVersions(releases: readonly Release[]): [string, string] {
  const newest = releases[0]?.version ?? '0.0.0';
  const first = semver.inc(newest, 'patch')!;
  return [first, semver.inc(first, 'patch')!];
}

/**
 * The uncommitted change a contender judges, on top of the second scratch release:
 *   code  code both roles' peers run (the codec), so every pairing is walked (code, not a comment: esbuild drops comments)
 *   docs  the README only: every role runs the release's code, so nothing is walked
 *   red   the self-test's kind of planted break: client and host count credit in KiB, so both skews break
 */
async function uncommitted(clone: string, change: 'code' | 'docs' | 'red'): Promise<void> {
  await git(clone, ['checkout', '-q', '--', '.']);
  const edit = async (file: string, find: string, replace: string) => {
    const path = join(clone, file);
    const text = await readFile(path, 'utf8');
    if (!text.includes(find)) throw new Error(`bench gate: ${file} no longer holds ${JSON.stringify(find)}; update the planted break`);
    await writeFile(path, text.replace(find, replace));
  };
  if (change === 'code') await appendFile(join(clone, 'src', 'codec', 'header.ts'), '\nexport const BENCH_UNCOMMITTED_CHANGE = 1;\n');
  if (change === 'docs') await appendFile(join(clone, 'README.md'), '\nA sentence only the docs gained.\n');
  if (change === 'red') {
    await edit('src/client/ack-batcher.ts', '    this.sendAck(bytes);', '    this.sendAck(Math.ceil(bytes / 1024));');
    await edit('src/host/host-connection.ts', '        stream.acked((value as { bytes: number }).bytes);', '        stream.acked((value as { bytes: number }).bytes * 1024);');
  }
}

interface Expect {
  readonly baselines: number;
  readonly staticOnly: boolean;
  /** Default compatible (exit 0); the red run is incompatible (exit 1). */
  readonly status?: 'compatible' | 'incompatible';
}

interface GateRun extends Completed {
  readonly report: GateReport;
}

/** One gate run, checked to be the run it claims to be (its status, baseline count, static or not). */
async function runGate(clone: string, cacheDir: string, extraArgs: readonly string[], expect: Expect): Promise<GateRun> {
  const status = expect.status ?? 'compatible';
  const args = ['bin/termwire.js', 'compat', '--format', 'json', '--cache-dir', cacheDir, ...extraArgs];
  const run = await runTimed(clone, process.execPath, args, {}, [status === 'compatible' ? 0 : 1]);
  let report: GateReport;
  try {
    report = JSON.parse(run.stdout) as GateReport;
  } catch {
    throw new Error(`bench gate: \`termwire ${args.slice(1).join(' ')}\` printed no JSON report:\n${tail(run.stdout)}`);
  }
  if (report.status !== status || report.baselines.length !== expect.baselines || report.staticOnly !== expect.staticOnly) {
    throw new Error(`bench gate: \`termwire ${args.slice(1).join(' ')}\` is not the run measured (want ${status}, ${expect.baselines} baseline(s), staticOnly ${expect.staticOnly}):\n${tail(run.stdout)}`);
  }
  return { ...run, report };
}

/** Seconds of the gate's finished steps whose label starts with `label`, as its progress printed them, summed over baselines. */
function stepSeconds(run: Completed, label: string): number {
  const done = /^✓ (.+?)(?:: .*)? \((\d+(?:\.\d+)?)s\)$/;
  const matches = run.progress.map((line) => done.exec(line.text)).filter((m) => m?.[1]?.startsWith(label));
  if (matches.length === 0) throw new Error(`bench gate: the gate printed no finished step '${label}':\n${run.progress.map((l) => l.text).join('\n')}`);
  return matches.reduce((sum, m) => sum + Number(m![2]), 0);
}

interface Runs {
  readonly cold: GateRun[];
  readonly static: GateRun[];
  readonly cached: GateRun[];
  readonly docsOnly: GateRun[];
  readonly matrix: GateRun[];
  readonly red: GateRun[];
  readonly build: Completed[];
}

/** The budgets: CPU-seconds hold on a noisy machine where wall time does not; wall time on 2 cores follows from them. */
const BUDGETS = { cachedCpuSeconds: 15, docsOnlySeconds: 5, coldSeconds: 45, redToGreenCpu: 2, redRootCauses: 1 } as const;

function rows(runs: Runs): Row[] {
  const seconds = (list: readonly Completed[]) => median(list.map((r) => r.seconds));
  const cpu = (list: readonly Completed[]) => median(list.map((r) => r.cpuSeconds ?? Number.NaN));
  const [cold, staticPass, cached, docsOnly, matrix, build] = [runs.cold, runs.static, runs.cached, runs.docsOnly, runs.matrix, runs.build].map(seconds) as [number, number, number, number, number, number];
  const [cachedCpu, redCpu] = [cpu(runs.cached), cpu(runs.red)];
  const inCached = (of: (run: GateRun) => number) => median(runs.cached.map(of));
  const ofCached = (value: number) => ({ value, unit: ' s', ratio: value / cached, baseline: 'cached run' });
  const baselineBuild = median(runs.cold.map((r) => stepSeconds(r, 'extract') + stepSeconds(r, 'install baseline') + stepSeconds(r, 'build baseline')));
  const redRoots = median(runs.red.map((r) => r.report.findings.filter((f) => f.causedBy === undefined).length));
  // What each part of a cached run cost, as the gate itself booked it (report.cost): the pass table's CPU column.
  const parts = [...new Set(runs.cached.flatMap((r) => Object.keys(r.report.cost?.peerCpuSeconds ?? {})))];
  return [
    { section: name, name: 'cold: empty cache (extract, install, build baseline + as cached)', value: cold, unit: ' s', ratio: BUDGETS.coldSeconds / cold, baseline: `${BUDGETS.coldSeconds} s budget`, target: 1, note: `median of ${COLD_ROUNDS}; N releases: + N × (extract + install + build baseline)` },
    { section: name, name: 'cached: a change both roles run (build working tree, static pass, every pass, decoders, capabilities off)', value: cached, unit: ' s', ratio: cached / cold, baseline: 'cold run', note: 'N releases: + N × journeys' },
    { section: name, name: 'cached: CPU of the gate and every process it started (user + system)', value: cachedCpu, unit: ' CPU-s', ratio: BUDGETS.cachedCpuSeconds / cachedCpu, baseline: `${BUDGETS.cachedCpuSeconds} CPU-s budget`, target: 1, note: 'wall time on 2 cores is at least CPU / 2' },
    { section: name, name: 'docs only: every role runs the release\'s code, nothing walked', value: docsOnly, unit: ' s', ratio: BUDGETS.docsOnlySeconds / docsOnly, baseline: `${BUDGETS.docsOnlySeconds} s budget`, target: 1 },
    { section: name, name: 'red: a planted break in both roles (credit counted in KiB), CPU', value: redCpu, unit: ' CPU-s', ratio: (BUDGETS.redToGreenCpu * cachedCpu) / redCpu, baseline: `${BUDGETS.redToGreenCpu} × the cached green run's CPU`, target: 1, note: `median of ${runs.red.length}` },
    { section: name, name: 'red: root causes reported for that one break', value: redRoots, unit: '', ratio: BUDGETS.redRootCauses / Math.max(1, redRoots), baseline: `${BUDGETS.redRootCauses} root cause`, target: 1 },
    { section: name, name: 'static pass alone (--static-only, baseline cached)', ...ofCached(staticPass), note: 'N releases: + N manifest diffs' },
    { section: name, name: 'matrix --against last:2, both cached', ...ofCached(matrix), note: 'build once + N × journeys' },
    { section: name, name: '`npm run build` of the working tree alone', ...ofCached(build), note: 'share of a cached run; repeated once per run, whatever N' },
    ...parts.map((part) => ({ section: name, name: `in cached: CPU of the peers for ${part}`, value: inCached((r) => r.report.cost?.peerCpuSeconds[part] ?? 0), unit: ' CPU-s', ratio: inCached((r) => r.report.cost?.peerCpuSeconds[part] ?? 0) / cachedCpu, baseline: 'cached run CPU', note: 'as the gate booked it (report.cost)' })),
    { section: name, name: 'in cached: CPU of the gate process itself', value: inCached((r) => r.report.cost?.gateCpuSeconds ?? 0), unit: ' CPU-s', ratio: inCached((r) => r.report.cost?.gateCpuSeconds ?? 0) / cachedCpu, baseline: 'cached run CPU', note: 'recording, judging, drawing snapshots' },
    { section: name, name: 'in cached: step "journeys" (peers + every pass)', ...ofCached(inCached((r) => stepSeconds(r, 'journeys against'))), note: 'diagnostic' },
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
    const runs: Runs = { cold: [], static: [], cached: [], docsOnly: [], matrix: [], red: [], build: [] };
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
      await uncommitted(clone, 'docs');
      runs.docsOnly.push(await runGate(clone, cache, [], one));
      if (round < RED_ROUNDS) {
        await uncommitted(clone, 'red');
        runs.red.push(await runGate(clone, cache, [], { ...one, status: 'incompatible' }));
      }
      await uncommitted(clone, 'code');
    }
    const result = rows(runs);
    return result;
  } finally {
    // rm does not follow links: the node_modules links in the clone and cache entries go, the repo's node_modules stays.
    await rm(scratch, { recursive: true, force: true });
  }
}
