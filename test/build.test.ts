import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// `npm run build` is esbuild (scripts/build.mjs), the declarations and the type check are tsc's: the two must agree on
// what the project is, or a source tsc checks would be missing from the build the gate runs.
const root = join(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'termwire-build-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run build', () => {
  it('compiles exactly the sources tsconfig.build.json names, one module each, where tsc would put it', () => {
    // A copy of the sources the build reads, so the test neither needs nor disturbs the checkout's own dist/.
    for (const part of ['src', 'compat', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(root, part), join(scratch, part), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: scratch, stdio: 'pipe' });

    const tscFiles = execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--listFilesOnly'], { cwd: scratch, encoding: 'utf8' })
      .split('\n')
      .map((f) => relative(scratch, f.trim()))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('..') && !f.startsWith('node_modules'));
    const built = (readdirSync(join(scratch, 'dist'), { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));

    expect(tscFiles.length).toBeGreaterThan(100);
    expect(built.sort()).toEqual(tscFiles.map((f) => f.replace(/\.ts$/, '.js')).sort());
  }, 60_000);
});
