import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
const flagsIn = (text: string) => [...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]).filter((f) => f !== '--help').sort();

describe('termwire attach --help', () => {
  const help = execFileSync(process.execPath, [join(repo, 'bin', 'termwire.js'), 'attach', '--help'], { encoding: 'utf8' });
  const usage = help.split('\n')[0]!;
  const options = help.slice(help.indexOf('Options:'), help.indexOf('-h, --help'));

  it('lists every option on its usage line and explains each, with its default', () => {
    expect(flagsIn(usage)).toEqual(['--alternate-screen', '--connect-timeout-ms', '--escape-key', '--no-tilde-escape', '--terminal', '--token-file']);
    expect(flagsIn(options)).toEqual(flagsIn(usage));
    expect(options).toMatch(/--connect-timeout-ms N[\s\S]*\(default 10000\)/);
  });

  it("matches the README's attach line", () => {
    const readmeLine = readFileSync(join(repo, 'README.md'), 'utf8').split('\n').find((l) => /termwire(\.js)? attach ws:/.test(l));
    expect(readmeLine, 'an attach line in the README').toBeDefined();
    expect(flagsIn(readmeLine!)).toEqual(flagsIn(usage));
  });
});
