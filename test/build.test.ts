import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_DIR, BUNDLED_ENTRIES } from '../compat/baseline/bundle-entries.js';

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
    const built = (readdirSync(join(scratch, 'dist'), { recursive: true }) as string[]).filter((f) => f.endsWith('.js') && !f.startsWith(`bundle${sep}`));

    expect(tscFiles.length).toBeGreaterThan(100);
    expect(built.sort()).toEqual(tscFiles.map((f) => f.replace(/\.ts$/, '.js')).sort());
  }, 60_000);

  it('bundles the entries a process starts from, each module still finding the files beside it', () => {
    // Runs after the test above, in its scratch build.
    expect(readdirSync(join(scratch, BUNDLE_DIR)).sort()).toEqual(Object.keys(BUNDLED_ENTRIES).map((name) => `${name}.js`).sort());
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    // The CLI reads package.json three folders above its own module (dist/src/cli/), not above the bundle.
    const cli = pathToFileURL(join(scratch, BUNDLE_DIR, 'cli.js')).href;
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', `const m = await import(${JSON.stringify(cli)}); process.exitCode = await m.main(['--version'], { compat: m.COMPAT_COMMAND });`], { encoding: 'utf8' });
    expect(printed.trim()).toBe(version);
    const usage = execFileSync(process.execPath, [join(scratch, BUNDLE_DIR, 'peer.js'), '--help'], { encoding: 'utf8' });
    expect(usage).toMatch(/^Usage: peer --role host/);
  });
});
