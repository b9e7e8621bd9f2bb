import { mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { compatHelpOptions, gitRepo, optionsIn, ROOT, sandbox, type Sandbox } from './helpers.js';

const SCRIPT = join(ROOT, 'scripts', 'ci', 'run-trusted-gate.sh');

const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));
function box(): Sandbox {
  const sb = sandbox(false);
  cleanup.push(sb.remove);
  return sb;
}

/** A stand-in for bin/termwire.js that says whose code it is, what it was given and what the acknowledgements file holds. */
const termwireBin = (who: string, exitCode: number) => `import { readFileSync } from 'node:fs';
const args = process.argv.slice(2);
const i = args.indexOf('--acknowledgements');
console.log(JSON.stringify({ who: '${who}', args, cwd: process.cwd(), acks: i < 0 ? null : readFileSync(args[i + 1], 'utf8') }));
process.exitCode = ${exitCode};
`;

/** A checkout shaped like a pull request's: main holds the gate and its acknowledgements; the PR edits both. */
async function prCheckout(sb: Sandbox): Promise<{ dir: string; git: (...a: string[]) => Promise<string> }> {
  const dir = join(sb.dir, 'pr-checkout');
  const git = await gitRepo(dir);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', '{"name":"termwire","type":"module"}\n');
  write('bin/termwire.js', termwireBin('base', 1));
  write('compat/acknowledged-breaks.json', '[]\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'base');
  await git('checkout', '-q', '-b', 'pr');
  write('bin/termwire.js', termwireBin('pr', 0));
  write('compat/acknowledged-breaks.json', '[{"ruleId":"FIELD_REMOVED","direction":"new host × old client","reason":"the PR acknowledges its own break"}]\n');
  await git('add', '-A');
  await git('commit', '-q', '-m', 'a break, acknowledged by the same PR');
  return { dir, git };
}

describe('scripts/ci/run-trusted-gate.sh: the base branch judges the PR', () => {
  it("runs the base's gate with the base's acknowledgements, from the PR checkout; installs the base; removes it; passes the exit code on", async () => {
    const sb = box();
    const { dir, git } = await prCheckout(sb);
    const runnerTemp = join(sb.dir, 'runner-temp');
    mkdirSync(runnerTemp);
    const r = await execa('bash', [SCRIPT, dir, 'main', '--format', 'json', '--against', 'latest'], {
      cwd: sb.dir,
      reject: false,
      env: { PATH: `${sb.fakeBin}:${process.env.PATH}`, RUNNER_TEMP: runnerTemp },
    });
    // stdout is the gate's alone (the install's output goes to stderr), and the gate's exit code comes back.
    const out = JSON.parse(r.stdout) as { who: string; args: string[]; cwd: string; acks: string };
    expect(r.exitCode).toBe(1);
    expect(out.who).toBe('base');
    expect(out.cwd).toBe(realpathSync(dir));
    expect(out.acks).toBe('[]\n');
    const trusted = dirname(dirname(out.args[2]!));
    expect(dirname(trusted)).toBe(realpathSync(runnerTemp));
    expect(out.args).toEqual(['compat', '--acknowledgements', join(trusted, 'compat', 'acknowledged-breaks.json'), '--format', 'json', '--against', 'latest']);
    expect(sb.log('npm')).toEqual([[trusted, 'ci', '--no-audit', '--no-fund']]);
    expect(r.stderr).toContain('fake npm output');
    // The trusted worktree is gone, and so is git's record of it; the PR checkout is as it was.
    expect(readdirSync(runnerTemp)).toEqual([]);
    expect((await git('worktree', 'list')).split('\n')).toHaveLength(1);
    expect(await git('status', '--porcelain')).toBe('');
    // Every option the script adds is one termwire compat has.
    const known = compatHelpOptions();
    for (const option of optionsIn(out.args)) expect(known, `termwire compat --help has no ${option}`).toContain(option);
  });

  it('a base ref the clone lacks: exit 2 naming fetch-depth: 0, nothing installed', async () => {
    const sb = box();
    const { dir } = await prCheckout(sb);
    const r = await execa('bash', [SCRIPT, dir, 'origin/main', '--format', 'json'], { reject: false, env: { PATH: `${sb.fakeBin}:${process.env.PATH}`, RUNNER_TEMP: sb.dir } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('origin/main is not in');
    expect(r.stderr).toContain('fetch-depth: 0');
    expect(r.stdout).toBe('');
    expect(sb.log('npm')).toEqual([]);
  });
});
