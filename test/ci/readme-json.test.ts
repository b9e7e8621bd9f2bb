import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The machine-readable command forms the docs give (`npm run ... compat -- --format json`),
 * cut just before `--format json`: what a user types in front of the options.
 */
function documentedJsonCommands(markdown: string): string[][] {
  const commands: string[][] = [];
  for (const line of markdown.split('\n')) {
    const m = /^\s*(npm run\b.*?\bcompat --)\s+--format json\b/.exec(line);
    if (m) commands.push(m[1]!.split(/\s+/));
  }
  return commands;
}

const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));

/**
 * A throwaway termwire project whose `compat` script is the real package.json's and whose
 * bin/termwire.js is this checkout's (so dist/ must be built): HEAD is its only release, so
 * the gate answers at once, offline, without building anything, and the report is still a report.
 */
async function throwawayProject(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-readme-json-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const real = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { compat: string } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'termwire', version: '0.1.0', private: true, scripts: { compat: real.scripts.compat } }, null, 2));
  mkdirSync(join(dir, 'bin'));
  symlinkSync(join(ROOT, 'bin', 'termwire.js'), join(dir, 'bin', 'termwire.js'));
  const git = (...args: string[]) => execa('git', args, { cwd: dir });
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'release: v0.1.0');
  return dir;
}

describe('the documented machine-readable command prints the report alone on stdout', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('README.md documents one, and docs/ci.md uses the same form', () => {
    const forms = documentedJsonCommands(readme);
    expect(forms.length).toBeGreaterThan(0);
    const ci = documentedJsonCommands(readFileSync(join(ROOT, 'docs', 'ci.md'), 'utf8'));
    expect(ci.length).toBeGreaterThan(0);
    for (const form of ci) expect(form).toEqual(forms[0]);
  });

  it("the README's exact form, run through npm: stdout JSON.parses whole", async () => {
    const [command] = documentedJsonCommands(readme);
    const [file, ...args] = command!;
    const dir = await throwawayProject();
    // An outer `npm test -s` would pass its silence on to this npm and hide the banner the test looks for.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.toLowerCase() !== 'npm_config_loglevel'));
    const r = await execa(file!, [...args, '--format', 'json', '--static-only', '--against', 'HEAD'], { cwd: dir, reject: false, extendEnv: false, env: { ...env, NO_COLOR: '1' } });
    let report: { status?: string; exitCode?: number; error?: { code?: string } } | undefined;
    expect(() => (report = JSON.parse(r.stdout) as typeof report), `stdout was not JSON:\n${r.stdout.slice(0, 400)}`).not.toThrow();
    // It is the gate's report (HEAD is the working tree: could not compare), and npm passed its exit code on.
    expect(report).toMatchObject({ status: 'cannotCompare', exitCode: 2, error: { code: 'SAME_TREE' } });
    expect(r.exitCode).toBe(2);
  });
});
