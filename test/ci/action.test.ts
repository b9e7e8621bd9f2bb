import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { compatHelpOptions, gitRepo, loadYaml, optionsIn, ROOT, runBlocks, sandbox } from './helpers.js';

const ACTION_PATH = join(ROOT, 'action.yml');
const WORKFLOW_PATH = join(ROOT, '.github', 'workflows', 'compat.yml');
const action = readFileSync(ACTION_PATH, 'utf8');
const workflow = readFileSync(WORKFLOW_PATH, 'utf8');

/** The inputs action.yml declares, with their defaults, read from its text. */
function inputDefaults(yaml: string): Record<string, string> {
  const section = /^inputs:\n((?:[ \t].*\n|\n)*)/m.exec(yaml)?.[1] ?? '';
  const inputs: Record<string, string> = {};
  let current: string | undefined;
  for (const line of section.split('\n')) {
    const name = /^ {2}([\w-]+):\s*$/.exec(line)?.[1];
    if (name) inputs[(current = name)] = '';
    const dflt = /^ {4}default:\s*(.*)$/.exec(line)?.[1];
    if (current && dflt !== undefined) inputs[current] = dflt.replace(/^'(.*)'$/, '$1');
  }
  return inputs;
}

/** The step's `env:` lines: variable -> the expression it is set from (`inputs.x` or `github.base_ref`). */
function stepEnv(yaml: string): Record<string, string> {
  return Object.fromEntries([...yaml.matchAll(/^\s+([A-Z_]+): \$\{\{ ([\w.-]+) \}\}\s*$/gm)].map((m) => [m[1]!, m[2]!]));
}

const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));

interface Event { readonly inputs?: Record<string, string>; readonly baseRef?: string; readonly installed?: boolean }

/**
 * Runs the action's gate step as GitHub would: env set from the step's `env:` mapping
 * (inputs with their defaults, github.base_ref), GITHUB_ACTION_PATH this checkout (so the
 * real scripts/ci/run-trusted-gate.sh runs), and stand-ins for npm and node that log.
 */
async function runGateStep(event: Event) {
  const [step, ...others] = runBlocks(action);
  expect(others).toEqual([]);
  const sb = sandbox(true);
  cleanup.push(sb.remove);
  const workspace = join(sb.dir, 'workspace');
  const git = await gitRepo(workspace);
  writeFileSync(join(workspace, 'package.json'), '{"name":"termwire"}\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'the pull request, merged into main');
  await git('update-ref', 'refs/remotes/origin/main', 'HEAD');
  if (event.installed ?? true) mkdirSync(join(workspace, 'node_modules'));
  const inputs = { ...inputDefaults(action), ...event.inputs };
  const env: Record<string, string> = {};
  for (const [name, expr] of Object.entries(stepEnv(action))) {
    if (expr === 'github.base_ref') env[name] = event.baseRef ?? '';
    else if (expr.startsWith('inputs.')) env[name] = inputs[expr.slice('inputs.'.length)] ?? expect.fail(`${name} is set from ${expr}, which action.yml does not declare`);
    else expect.fail(`${name} is set from ${expr}`);
  }
  const runnerTemp = join(sb.dir, 'runner-temp');
  mkdirSync(runnerTemp);
  const result = await execa('bash', ['-c', step!], {
    cwd: workspace,
    reject: false,
    env: { ...env, PATH: `${sb.fakeBin}:${process.env.PATH}`, GITHUB_ACTION_PATH: ROOT, RUNNER_TEMP: runnerTemp },
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return { node: sb.log('node'), npm: sb.log('npm'), workspace: realpathSync(workspace), runnerTemp: realpathSync(runnerTemp), head: await git('rev-parse', 'HEAD') };
}

describe('action.yml', () => {
  it('declares the inputs with their defaults, and its script takes them from env only (no ${{ }} inside the shell)', () => {
    expect(inputDefaults(action)).toEqual({ against: 'latest', format: 'github', explore: '0', seed: '', shard: '', output: '', 'cache-dir': '', 'trusted-base': 'true' });
    const [step] = runBlocks(action);
    expect(step).not.toContain('${{');
    expect(stepEnv(action)).toMatchObject({ TERMWIRE_AGAINST: 'inputs.against', TERMWIRE_TRUSTED_BASE: 'inputs.trusted-base', TERMWIRE_BASE_REF: 'github.base_ref' });
  });

  it('parses as YAML: a composite action whose steps name their shell (PyYAML; skipped without it)', (ctx) => {
    const parsed = loadYaml(ACTION_PATH) as { runs: { using: string; steps: Array<{ shell?: string; run?: string }> }; inputs: Record<string, { default?: string }> } | undefined;
    if (!parsed) return ctx.skip('python3 has no PyYAML here');
    expect(parsed.runs.using).toBe('composite');
    for (const s of parsed.runs.steps) if (s.run) expect(s.shell).toBe('bash');
    expect(Object.fromEntries(Object.entries(parsed.inputs).map(([k, v]) => [k, v.default]))).toEqual(inputDefaults(action));
  });

  it('on a pull request it runs the base branch gate, with its acknowledgements, judging the checkout', async () => {
    const run = await runGateStep({ baseRef: 'main' });
    expect(run.node).toHaveLength(1);
    const [cwd, bin, ...args] = run.node[0]!;
    expect(cwd).toBe(run.workspace);
    const trusted = dirname(dirname(bin!));
    expect(dirname(trusted)).toBe(run.runnerTemp);
    expect(args).toEqual(['compat', '--acknowledgements', join(trusted, 'compat', 'acknowledged-breaks.json'), '--against', 'latest', '--format', 'github']);
    expect(run.npm).toEqual([[trusted, 'ci', '--no-audit', '--no-fund']]);
  });

  it("on a push, or with trusted-base: false, it runs the checkout's own gate", async () => {
    for (const event of [{}, { baseRef: 'main', inputs: { 'trusted-base': 'false' } }]) {
      const run = await runGateStep(event);
      expect(run.node).toEqual([[run.workspace, 'bin/termwire.js', 'compat', '--against', 'latest', '--format', 'github']]);
      expect(run.npm).toEqual([]);
    }
  });

  it('passes against, format, explore and seed on; an empty seed is derived from the commit; a checkout not installed is installed first', async () => {
    const derived = await runGateStep({ inputs: { against: 'last:2', format: 'json', explore: '3' }, installed: false });
    expect(derived.npm).toEqual([[derived.workspace, 'ci', '--no-audit', '--no-fund']]);
    expect(derived.node[0]!.slice(3)).toEqual(['--against', 'last:2', '--format', 'json', '--explore', '3', '--seed', String(parseInt(derived.head.slice(0, 7), 16))]);
    const seeded = await runGateStep({ inputs: { explore: '5', seed: '42' } });
    expect(seeded.node[0]!.slice(3)).toEqual(['--against', 'latest', '--format', 'github', '--explore', '5', '--seed', '42']);
    const sharded = await runGateStep({ inputs: { explore: '5', seed: '42', shard: '2/4', format: 'json' } });
    expect(sharded.node[0]!.slice(3)).toEqual(['--against', 'latest', '--format', 'json', '--explore', '5', '--seed', '42', '--shard', '2/4']);
  });

  it('a sharded sweep writes its report to output, with the cache in cache-dir, both as absolute paths the trusted gate in its own worktree still finds', async () => {
    const run = await runGateStep({ baseRef: 'main', inputs: { format: 'json', shard: '1/2', output: 'shard-1.json', 'cache-dir': '.cache/compat' } });
    const args = run.node[0]!.slice(2);
    expect(args.slice(args.indexOf('--shard'))).toEqual(['--shard', '1/2', '--output', join(run.workspace, 'shard-1.json'), '--cache-dir', join(run.workspace, '.cache/compat')]);
  });

  it('every option it passes to termwire compat is one that --help lists', async () => {
    const known = compatHelpOptions();
    const runs = [await runGateStep({ baseRef: 'main', inputs: { explore: '2' } }), await runGateStep({ inputs: { explore: '2', seed: '7', shard: '1/2', output: 'r.json', 'cache-dir': 'c' } })];
    const passed = new Set(runs.flatMap((r) => r.node.flatMap((argv) => optionsIn(argv.slice(argv.indexOf('compat') + 1)))));
    expect([...passed].sort()).toEqual(['--acknowledgements', '--against', '--cache-dir', '--explore', '--format', '--output', '--seed', '--shard']);
    for (const option of passed) expect(known, `termwire compat --help has no ${option}`).toContain(option);
  });
});

describe('.github/workflows/compat.yml', () => {
  it('runs npm test, and the repository action on a full-history checkout', () => {
    expect(workflow).toMatch(/^\s+- run: npm test\s*$/m);
    expect(workflow).toMatch(/^\s+- uses: \.\/(\s|$)/m);
    expect(existsSync(ACTION_PATH)).toBe(true);
    const job = workflow.slice(workflow.lastIndexOf('\n  version-skew:'));
    expect(job).toMatch(/fetch-depth: 0/);
    expect(job.indexOf('run: npm ci')).toBeLessThan(job.indexOf('uses: ./'));
  });

  it('parses as YAML: pull requests and pushes to main, npm ci before npm test and before the action (PyYAML; skipped without it)', (ctx) => {
    type Step = { run?: string; uses?: string; with?: Record<string, unknown> };
    const parsed = loadYaml(WORKFLOW_PATH) as { jobs: Record<string, { steps: Step[] }> } & Record<string, unknown> | undefined;
    if (!parsed) return ctx.skip('python3 has no PyYAML here');
    const on = (parsed['on'] ?? parsed['true']) as Record<string, unknown>; // YAML 1.1 reads a bare `on` as true
    expect(Object.keys(on).sort()).toEqual(['pull_request', 'push']);
    const steps = Object.values(parsed.jobs).map((j) => j.steps);
    const at = (s: Step[], f: (x: Step) => boolean) => s.findIndex(f);
    const testing = steps.find((s) => at(s, (x) => x.run === 'npm test') >= 0)!;
    expect(at(testing, (x) => x.run === 'npm ci')).toBeLessThan(at(testing, (x) => x.run === 'npm test'));
    const gating = steps.find((s) => at(s, (x) => x.uses === './') >= 0)!;
    expect(gating.find((x) => x.uses?.startsWith('actions/checkout'))?.with?.['fetch-depth']).toBe(0);
    expect(at(gating, (x) => x.run === 'npm ci')).toBeLessThan(at(gating, (x) => x.uses === './'));
  });
});

describe('.github/CODEOWNERS', () => {
  it('puts what the trusted gate reads, and the CI that runs it, under review', () => {
    const owners = readFileSync(join(ROOT, '.github', 'CODEOWNERS'), 'utf8');
    for (const path of ['/compat/', '/compat/acknowledged-breaks.json', '/action.yml', '/scripts/ci/', '/.github/']) {
      expect(owners).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s+@\\S+`, 'm'));
    }
  });
});
