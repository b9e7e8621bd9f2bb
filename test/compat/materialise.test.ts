import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { cacheEntryDir, MATERIALISE_FORMAT, materialise, STAMP_FILE } from '../../compat/baseline/materialise.js';
import { CompatError } from '../../compat/errors.js';
import { silentProgress } from '../../compat/progress.js';
import { createTempRepo, type TempRepo } from './helpers/temp-repo.js';

// A tiny stand-in project (a trivial build script, no dependencies) so the
// stamp, race and failure paths run in milliseconds; the real npm ci / tsc
// path is the same code with a bigger project.
const BUILD_SCRIPT = `
const fs = require('fs');
const n = Number(fs.existsSync('count.txt') ? fs.readFileSync('count.txt', 'utf8') : 0) + 1;
fs.writeFileSync('count.txt', String(n));
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/out.txt', fs.readFileSync('src.txt', 'utf8').toUpperCase());
`;
const project = (build = 'node build.cjs') => ({
  'package.json': JSON.stringify({ name: 'tiny', version: '1.0.0', scripts: { build } }),
  'build.cjs': BUILD_SCRIPT,
  'src.txt': 'old side\n',
});

const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));
async function setup(files: Record<string, string> = project()) {
  const repo: TempRepo = await createTempRepo();
  const commit = await repo.commit('release: v1.0.0', files);
  const cacheDir = mkdtempSync(join(tmpdir(), 'termwire-cache-'));
  cleanup.push(repo.remove, () => rmSync(cacheDir, { recursive: true, force: true }));
  return { repo, commit, cacheDir };
}
const tempLeft = (cacheDir: string) => readdirSync(cacheDir).filter((n) => n.startsWith('.tmp-'));

/** A release whose build leaves its peer entry unbundled, as releases before 0.3 do; its version module reads package.json beside itself. */
const unbundledPeerProject = (main = "import { name } from './version.js';\nconsole.log(name());\n") => ({
  'package.json': JSON.stringify({ name: 'tiny-peer', version: '1.0.0', type: 'module', scripts: { build: 'node build.cjs' } }),
  'build.cjs': "const fs = require('fs'); fs.mkdirSync('dist/compat/peer', { recursive: true }); fs.copyFileSync('main.js', 'dist/compat/peer/main.js'); fs.copyFileSync('version.js', 'dist/compat/peer/version.js');\n",
  'main.js': main,
  'version.js': "import { readFileSync } from 'node:fs';\nexport const name = () => JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).name;\n",
});

describe('materialise', () => {
  it('extracts the commit (not the working tree), builds it, stamps it, and reuses the cache', async () => {
    const { repo, commit, cacheDir } = await setup();
    repo.write('src.txt', 'uncommitted edit\n');
    const first = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress });
    expect(first).toEqual({ dir: cacheEntryDir(cacheDir, commit), fromCache: false });
    expect(readFileSync(join(first.dir, 'dist/out.txt'), 'utf8')).toBe('OLD SIDE\n');
    expect(JSON.parse(readFileSync(join(first.dir, STAMP_FILE), 'utf8'))).toMatchObject({ commit, format: MATERIALISE_FORMAT });
    const second = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress });
    expect(second.fromCache).toBe(true);
    expect(readFileSync(join(first.dir, 'count.txt'), 'utf8')).toBe('1');
  });

  it('redoes a cache directory that has no stamp', async () => {
    const { repo, commit, cacheDir } = await setup();
    const dir = cacheEntryDir(cacheDir, commit);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'half-built'), 'killed mid-build');
    const got = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress });
    expect(got.fromCache).toBe(false);
    expect(existsSync(join(dir, 'half-built'))).toBe(false);
    expect(existsSync(join(dir, STAMP_FILE))).toBe(true);
  });

  it('verifies a cache entry by the content hash of what it holds, and rebuilds one with a truncated file', async () => {
    const { repo, commit, cacheDir } = await setup();
    const first = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress });
    expect(JSON.parse(readFileSync(join(first.dir, STAMP_FILE), 'utf8')).contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress })).fromCache).toBe(true);
    truncateSync(join(first.dir, 'dist/out.txt'), 3);
    const notes: string[] = [];
    const again = await materialise({ repo: repo.dir, commit, cacheDir, progress: { ...silentProgress, note: (m) => void notes.push(m) } });
    expect(again.fromCache).toBe(false);
    expect(readFileSync(join(again.dir, 'dist/out.txt'), 'utf8')).toBe('OLD SIDE\n');
    expect(notes.join('\n')).toContain('does not match its recorded content hash: rebuilding it');
  });

  it('two racing runs both end with a good build and no temp dir left', async () => {
    const { repo, commit, cacheDir } = await setup();
    const [a, b] = await Promise.all([
      materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress }),
      materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress }),
    ]);
    expect(a.dir).toBe(b.dir);
    expect(readFileSync(join(a.dir, 'dist/out.txt'), 'utf8')).toBe('OLD SIDE\n');
    expect(JSON.parse(readFileSync(join(a.dir, STAMP_FILE), 'utf8')).commit).toBe(commit);
    expect(tempLeft(cacheDir)).toEqual([]);
    expect(readdirSync(cacheDir)).toEqual([`${commit}-f${MATERIALISE_FORMAT}`]);
  });

  it('a failing build is BUILD_FAILED (exit 2) with the log tail, and leaves nothing behind', async () => {
    const failing = { ...project('node fail.cjs'), 'fail.cjs': 'for (let i = 0; i < 100; i++) console.log("line " + i);\nconsole.error("tsc: error TS1234 planted");\nprocess.exit(3);\n' };
    const { repo, commit, cacheDir } = await setup(failing);
    const e = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CompatError);
    const err = e as CompatError;
    expect(err.code).toBe('BUILD_FAILED');
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('error TS1234 planted');
    expect(err.message).toContain('line 99');
    expect(err.message).not.toContain('line 10\n'); // only the tail
    expect(tempLeft(cacheDir)).toEqual([]);
    expect(existsSync(cacheEntryDir(cacheDir, commit))).toBe(false);
  });

  it('builds the baseline once when its install\'s prepare already ran the build', async () => {
    const lock = JSON.stringify({ name: 'tiny', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'tiny', version: '1.0.0' } } });
    const pkg = JSON.stringify({ name: 'tiny', version: '1.0.0', scripts: { build: 'node build.cjs', prepare: 'npm run build' } });
    const { repo, commit, cacheDir } = await setup({ ...project(), 'package.json': pkg, 'package-lock.json': lock });
    const got = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress });
    expect(readFileSync(join(got.dir, 'dist/out.txt'), 'utf8')).toBe('OLD SIDE\n');
    expect(readFileSync(join(got.dir, 'count.txt'), 'utf8')).toBe('1');
  }, 60_000);

  it('a failing install is INSTALL_FAILED with the log tail', async () => {
    const files = {
      ...project(),
      'package.json': JSON.stringify({ name: 'tiny', version: '1.0.0', scripts: { build: 'node build.cjs' }, dependencies: { 'is-number': '7.0.0' } }),
      // A damaged lockfile: npm ci fails for a reason no fallback may paper over.
      'package-lock.json': '{ "name": "tiny", "lockfileVersion": 3, "packages": ',
    };
    const { repo, commit, cacheDir } = await setup(files);
    const e = (await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress }).catch((x: unknown) => x)) as CompatError;
    expect(e).toBeInstanceOf(CompatError);
    expect(e.code).toBe('INSTALL_FAILED');
    expect(e.message).toContain('npm ci');
    expect(e.message).toMatch(/Last 40 lines:\n\S/);
    expect(tempLeft(cacheDir)).toEqual([]);
  });

  it('reuses node_modules by symlink only when the lockfiles are byte-identical', async () => {
    const lock = JSON.stringify({ name: 'tiny', version: '1.0.0', lockfileVersion: 3, packages: {} });
    const { repo, commit, cacheDir } = await setup({ ...project(), 'package-lock.json': lock });
    const donor = mkdtempSync(join(tmpdir(), 'termwire-donor-'));
    cleanup.push(() => rmSync(donor, { recursive: true, force: true }));
    mkdirSync(join(donor, 'node_modules'));
    writeFileSync(join(donor, 'package-lock.json'), lock);
    const got = await materialise({ repo: repo.dir, commit, cacheDir, reuseDependenciesFrom: donor, progress: silentProgress });
    expect(lstatSync(join(got.dir, 'node_modules')).isSymbolicLink()).toBe(true);

    const { repo: repo2, commit: c2, cacheDir: cache2 } = await setup({ ...project(), 'package-lock.json': lock.replace('1.0.0', '1.0.1') });
    const other = await materialise({ repo: repo2.dir, commit: c2, cacheDir: cache2, reuseDependenciesFrom: donor, progress: silentProgress });
    expect(existsSync(join(other.dir, 'node_modules')) && lstatSync(join(other.dir, 'node_modules')).isSymbolicLink()).toBe(false);
    unlinkSync(join(got.dir, 'node_modules')); // never follow the link when cleaning up
  });

  it('rebuilds a cached build whose reused node_modules has gone away with its donor checkout', async () => {
    const lock = JSON.stringify({ name: 'tiny', version: '1.0.0', lockfileVersion: 3, packages: {} });
    const { repo, commit, cacheDir } = await setup({ ...project(), 'package-lock.json': lock });
    const donorRoot = mkdtempSync(join(tmpdir(), 'termwire-donor-'));
    cleanup.push(() => rmSync(donorRoot, { recursive: true, force: true }));
    // The donor's node_modules is itself a link (a clone sharing another checkout's): link to the real directory.
    mkdirSync(join(donorRoot, 'real_modules'));
    const donor = join(donorRoot, 'clone');
    mkdirSync(donor);
    symlinkSync(join(donorRoot, 'real_modules'), join(donor, 'node_modules'));
    writeFileSync(join(donor, 'package-lock.json'), lock);
    const first = await materialise({ repo: repo.dir, commit, cacheDir, reuseDependenciesFrom: donor, progress: silentProgress });
    expect(readlinkSync(join(first.dir, 'node_modules'))).toBe(realpathSync(join(donorRoot, 'real_modules')));

    rmSync(join(donorRoot, 'real_modules'), { recursive: true });
    mkdirSync(join(donorRoot, 'real_modules'));
    expect((await materialise({ repo: repo.dir, commit, cacheDir, reuseDependenciesFrom: donor, progress: silentProgress })).fromCache).toBe(true);
    rmSync(join(donorRoot, 'real_modules'), { recursive: true });
    const again = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress });
    expect(again.fromCache).toBe(false);
    expect(readFileSync(join(again.dir, 'count.txt'), 'utf8')).toBe('1');
  });

  // Under `npm run -s` the environment says npm_config_loglevel=silent: npm ci's refusal must still be read (it once was not, so the gate said INSTALL_FAILED).
  it.each([['', undefined], [' (under npm run -s)', 'silent']])('installs a release whose lockfile npm ci refuses as out of sync with npm install --no-save, and says so%s', async (_label, loglevel) => {
    const saved = process.env.npm_config_loglevel;
    if (loglevel) process.env.npm_config_loglevel = loglevel;
    onTestFinished(() => {
      if (saved === undefined) delete process.env.npm_config_loglevel;
      else process.env.npm_config_loglevel = saved;
    });
    // Seen on v0.1.0: vite 8.4 named an optional dependency the registry does not have, so the lockfile missed it.
    const lock = JSON.stringify({ name: 'tiny', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'tiny', version: '1.0.0' } } });
    const pkg = JSON.stringify({ name: 'tiny', version: '1.0.0', scripts: { build: 'node build.cjs' }, dependencies: { 'is-number': '7.0.0' } });
    const { repo, commit, cacheDir } = await setup({ ...project(), 'package.json': pkg, 'package-lock.json': lock });
    const notes: string[] = [];
    const progress = { ...silentProgress, step: (label: string) => ({ ...silentProgress.step(label), done: (note?: string) => void notes.push(`${label}: ${note ?? ''}`) }) };
    const got = await materialise({ repo: repo.dir, commit, cacheDir, progress });
    expect(existsSync(join(got.dir, 'node_modules', 'is-number', 'package.json'))).toBe(true);
    expect(notes.join('\n')).toContain('npm ci refused the lockfile');
  }, 120_000);

  it("bundles the peer of a release whose build did not, each module still reading its own location; one it cannot bundle starts from dist", async () => {
    const { repo, commit, cacheDir } = await setup(unbundledPeerProject());
    const bundled = await materialise({ repo: repo.dir, commit, cacheDir, progress: silentProgress });
    expect(readdirSync(join(bundled.dir, 'dist/bundle'))).toEqual(['peer.js']);
    expect(execFileSync(process.execPath, [join(bundled.dir, 'dist/bundle/peer.js')], { encoding: 'utf8' }).trim()).toBe('tiny-peer');
    const broken = await setup(unbundledPeerProject("import './missing.js';\n"));
    const unbundled = await materialise({ repo: broken.repo.dir, commit: broken.commit, cacheDir: broken.cacheDir, progress: silentProgress });
    expect(existsSync(join(unbundled.dir, 'dist/bundle'))).toBe(false);
    expect(existsSync(join(unbundled.dir, 'dist/compat/peer/main.js'))).toBe(true);
  });
});
