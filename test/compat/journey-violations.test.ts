import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleEntry } from '../../compat/rules/catalog.js';
import { SELF_TEST_LANES } from './helpers/self-test-lanes.js';
import { loadViolationFixtures, plantViolation, type ViolationFixture } from './helpers/violation-fixtures.js';

// The gate proves itself: each fixture plants one class of break in a clone of
// this project whose HEAD is released as v0.0.1, then runs the real gate
// (real builds of both sides, real peer processes, real sockets) against it.
const root = join(import.meta.dirname, '..', '..');
const fixtures = longestFirst(loadViolationFixtures());
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=termwire selftest', '-c', 'user.email=selftest@termwire.invalid', ...args], {
    cwd,
    encoding: 'utf8',
    // Fixed dates give the release commit the same hash in every run, so the baseline build cache is reused.
    env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' },
  });

/**
 * A fixture that expects a break skips the parts of a gate run that can
 * only add findings and cannot find its break: the journeys with one
 * capability off (about 25 s) unless it names them (`--capabilities-off
 * each`), and the decoder check (about 7 s) unless it expects the decoders
 * to disagree or names `--decoder-frames`; and the passes beside the script
 * (about two thirds of a walk's pairings) but those it names (`passes`). One
 * whose every expected finding is a static rule's runs the static pass only.
 * A harmless fixture walks the whole default run, since a false alarm
 * anywhere in it is a finding too.
 */
function fixtureArgs(fixture: ViolationFixture): string[] {
  const args = [...(fixture.args ?? [])];
  if (fixture.expect.exit !== 1) return args;
  // A break only the manifests show (a renumbered opcode, a lowered limit) is judged without peers: every finding
  // it expects is a static rule's, and the static pass's findings stand whatever the journeys add.
  if (!args.length && fixture.expect.findings.every((f) => ruleEntry(f.ruleId)?.pass === 'static')) return ['--static-only'];
  if (!args.includes('--capabilities-off')) args.push('--capabilities-off', 'none');
  // A replay walks only its schedule and a static-only run no journey: neither has passes to choose. A fixture that
  // names findings that must not appear guards against a false alarm, which any pass could raise: it walks them all.
  if (!args.includes('--replay') && !args.includes('--static-only') && !fixture.expect.absent?.length) args.push('--passes', ['script', ...(fixture.passes ?? [])].join(','));
  const decoders = args.includes('--decoder-frames') || fixture.expect.findings.some((f) => f.ruleId === 'DECODERS_DISAGREE');
  if (!decoders) args.push('--decoder-frames', '0');
  return args;
}

/**
 * The order fixtures start in: the longest first (a harmless probe walks the
 * whole run, a break its script pass and the passes it names, a static-only
 * break starts no peer), so the run does not end on one long fixture while
 * the other lane idles. Ties keep their name order.
 */
function longestFirst(all: ViolationFixture[]): ViolationFixture[] {
  const cost = (fixture: ViolationFixture) => {
    const args = fixtureArgs(fixture);
    if (args.includes('--static-only')) return 0;
    if (args.includes('--replay')) return 1;
    const valueOf = (option: string) => (args.includes(option) ? args[args.indexOf(option) + 1] : undefined);
    const passesWalked = valueOf('--passes')?.split(',').length ?? 5;
    return passesWalked + (valueOf('--capabilities-off') === 'none' ? 0 : 5);
  };
  return all.map((fixture) => ({ fixture, cost: cost(fixture) })).sort((x, y) => y.cost - x.cost).map(({ fixture }) => fixture);
}

/** Fixtures run SELF_TEST_LANES at a time, each in a clone of its own. The clones share one baseline cache, which is safe under races. */
const LANES = SELF_TEST_LANES;

describe.concurrent('the gate catches every planted class of break', () => {
  let work: string;
  let cache: string;
  const freeLanes: string[] = [];

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'termwire-selftest-'));
    const project = join(work, 'project-0');
    cache = join(work, 'cache');
    git(work, 'clone', '-q', root, project);
    symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
    git(project, 'commit', '-q', '--allow-empty', '-m', 'release: v0.0.1');
    git(project, 'tag', 'v0.0.1');
    // As after `npm ci`: the gate's own CLI runs from the checkout's dist.
    execFileSync('npm', ['run', 'build'], { cwd: project, stdio: 'ignore' });
    freeLanes.push(project);
    // The other lanes are copies of the built clone, its build stamp included.
    for (let lane = 1; lane < LANES; lane++) {
      const copy = join(work, `project-${lane}`);
      cpSync(project, copy, { recursive: true, verbatimSymlinks: true });
      freeLanes.push(copy);
    }
  }, 600_000); // a clone, its build and its copies on a loaded runner

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    // harmless-divergence-once marks its one misfire per gate run here.
    for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith('termwire-selftest-misfire-'))) rmSync(join(tmpdir(), name), { force: true });
  });

  /** Fixtures waiting for a clone, first come first served. */
  const waitingForLane: Array<(project: string) => void> = [];

  /**
   * Runs `use` in a clone no other test is using, and gives the clone back
   * after; waits its turn when none is free. A fixture that vitest timed out
   * still holds its clone until its gate exits (vitest does not stop it), so
   * the next one waits for that, instead of failing with it.
   */
  async function inFreeClone(use: (project: string) => Promise<void>): Promise<void> {
    const project = freeLanes.pop() ?? (await new Promise<string>((resolve) => waitingForLane.push(resolve)));
    try {
      await use(project);
    } finally {
      const next = waitingForLane.shift();
      if (next) next(project);
      else freeLanes.push(project);
    }
  }

  it('a sweep split in shards and merged gives the verdict, coverage and schedules of the unsplit run, and names each shard\'s seeds', () =>
    inFreeClone(async (project) => {
      git(project, 'checkout', '-q', '--', '.');
      // A tree that differs from the release (an additive field), so the gate has something to compare.
      plantViolation(project, fixtures.find((f) => f.name === 'additive-optional-field')!);
      const bin = join(project, 'bin', 'termwire.js');
      // What sharding splits is the script and the explore seeds; the capability-off journeys and the passes beside the script go with the script and are left out here.
      const sweep = ['--against', 'v0.0.1', '--cache-dir', cache, '--explore', '2', '--seed', '7', '--decoder-frames', '2000', '--capabilities-off', 'none', '--passes', 'script', '--format', 'json'];
      const gate = (...args: string[]) => execa(process.execPath, [bin, 'compat', ...args], { cwd: project, reject: false, env: { NO_COLOR: '1' } });
      const whole = await gate(...sweep);
      const shardFiles = [1, 2].map((i) => join(work, `shard-${i}-of-2.json`));
      for (const [i, file] of shardFiles.entries()) {
        const shard = await gate(...sweep, '--shard', `${i + 1}/2`, '--output', file);
        expect(shard.exitCode, `shard ${i + 1}/2\n${shard.stderr.split('\n').slice(-15).join('\n')}`).toBe(whole.exitCode);
      }
      const merged = await gate('merge', '--format', 'json', ...shardFiles);
      type Report = { status: string; findings: Array<{ ruleId: string; direction: string; subject: string }>; coverage?: unknown; explore?: { schedules: string[] }; shards?: Array<{ units: Array<{ script: boolean; exploreSeeds: number[] }> }> };
      const [a, b] = [JSON.parse(whole.stdout) as Report, JSON.parse(merged.stdout) as Report];
      const context = `unsplit:\n${whole.stdout}\nmerged:\n${merged.stdout}`;
      expect(merged.exitCode, context).toBe(whole.exitCode);
      expect(b.status, context).toBe(a.status);
      const named = (r: Report) => r.findings.map((f) => `${f.ruleId} ${f.direction} ${f.subject}`).sort();
      expect(named(b), context).toEqual(named(a));
      expect(b.coverage, context).toEqual(a.coverage);
      expect(b.explore?.schedules, context).toEqual(a.explore?.schedules);
      // Units in order: the script, seed 7, seed 8; unit u to shard (u mod 2) + 1.
      expect(b.shards?.map((s) => s.units.map((u) => [u.script, u.exploreSeeds])), context).toEqual([[[true, [8]]], [[false, [7]]]]);
    }), 900_000);

  it.each(fixtures.map((f) => [f.name, f] as const))('%s', (_name, fixture) => inFreeClone((project) => checkFixture(project, fixture)), 900_000); // a hang guard, not a speed check: on a loaded runner a fixture confirmed by a second walk takes minutes


  async function checkFixture(project: string, fixture: ViolationFixture): Promise<void> {
    git(project, 'checkout', '-q', '--', '.');
    plantViolation(project, fixture);
    const run = await execa(process.execPath, [join(project, 'bin', 'termwire.js'), 'compat', '--against', 'v0.0.1', '--format', 'json', '--cache-dir', cache, ...fixtureArgs(fixture)], { cwd: project, reject: false, env: { NO_COLOR: '1' } });
    const context = `${fixture.description}\nexit ${run.exitCode}\nstdout:\n${run.stdout}\nstderr (tail):\n${run.stderr.split('\n').slice(-15).join('\n')}`;
    expect(run.exitCode, context).toBe(fixture.expect.exit);
    const report = JSON.parse(run.stdout) as { findings: Array<Record<string, unknown>>; notReproduced?: Array<Record<string, unknown>>; notes?: string[] };
    for (const text of fixture.expect.notes ?? []) expect((report.notes ?? []).some((n) => n.includes(text)), `expected a note holding ${JSON.stringify(text)}\n${context}`).toBe(true);
    for (const wanted of fixture.expect.findings) {
      expect(report.findings.some((f) => Object.entries(wanted).every(([k, v]) => f[k] === v)), `expected a finding ${JSON.stringify(wanted)}\n${context}`).toBe(true);
    }
    if (fixture.expect.exit === 0) expect(report.findings, context).toEqual([]);
    for (const unwanted of fixture.expect.absent ?? []) {
      expect(report.findings.filter((f) => Object.entries(unwanted).every(([k, v]) => f[k] === v)), `no finding ${JSON.stringify(unwanted)}\n${context}`).toEqual([]);
    }
    for (const wanted of fixture.expect.notReproduced ?? []) {
      expect((report.notReproduced ?? []).some((f) => Object.entries(wanted).every(([k, v]) => f[k] === v)), `expected a finding reported as not reproduced ${JSON.stringify(wanted)}\n${context}`).toBe(true);
    }
    const only = fixture.expect.onlyOccurrence;
    if (only) {
      const ofRule = report.findings.filter((f) => f.ruleId === only.ruleId);
      // Steps outside the snapshot occurrences (limitsReached asks for a snapshot too) carry none.
      expect(ofRule.every((f) => f.occurrence === undefined || f.occurrence === only.occurrence), `every ${only.ruleId} finding of a snapshot occurrence in ${only.occurrence}\n${context}`).toBe(true);
      expect(ofRule.some((f) => f.occurrence === only.occurrence), `a ${only.ruleId} finding in occurrence ${only.occurrence}\n${context}`).toBe(true);
    }
  }
});
