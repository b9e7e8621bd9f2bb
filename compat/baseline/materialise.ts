import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { trackTempDir } from '../cleanup.js';
import { CompatError } from '../errors.js';
import type { Progress } from '../progress.js';
import { contentHash } from './content-hash.js';
import { buildProject, installAlreadyBuilt, installDependencies, tailLines } from './build-project.js';
import { BUNDLE_DIR, BUNDLED_ENTRIES, bundleEntries } from './bundle-entries.js';

/**
 * The cache layout version. Bump it when what a cached build contains changes
 * (a new build step, a different install): old cache entries are then ignored.
 */
export const MATERIALISE_FORMAT = 2;
export const STAMP_FILE = '.termwire-compat-stamp.json';

export interface MaterialiseOptions {
  readonly repo: string;
  readonly commit: string;
  readonly cacheDir: string;
  /** Project whose node_modules may be reused when the lockfiles match (the working tree). */
  readonly reuseDependenciesFrom?: string;
  readonly progress: Progress;
}

export interface Materialised { readonly dir: string; readonly fromCache: boolean }

interface Stamp { format: number; commit: string; dependencies: string; contentHash: string }

/** What a cache entry holds, hashed: sources and build byte for byte, installed dependencies by size. */
const entryHash = (dir: string) => contentHash(dir, { skip: [STAMP_FILE], sizesOnlyUnder: ['node_modules'] });

type StampCheck = { ok: true; stamp: Stamp } | { ok: false; damaged: boolean };

function checkStamp(dir: string, commit: string): StampCheck {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(join(dir, STAMP_FILE), 'utf8')) as Stamp;
  } catch {
    return { ok: false, damaged: false };
  }
  if (stamp.format !== MATERIALISE_FORMAT || stamp.commit !== commit) return { ok: false, damaged: false };
  // Reused dependencies are a link to another checkout's node_modules: if that is gone, so is this build.
  if (stamp.dependencies === 'reused' && !existsSync(join(dir, 'node_modules'))) return { ok: false, damaged: true };
  // A file truncated or edited in the cache (a full disk, a stray edit) is rebuilt, never run.
  if (stamp.contentHash !== entryHash(dir)) return { ok: false, damaged: true };
  return { ok: true, stamp };
}

const readStamp = (dir: string, commit: string): Stamp | undefined => {
  const check = checkStamp(dir, commit);
  return check.ok ? check.stamp : undefined;
};

export function cacheEntryDir(cacheDir: string, commit: string): string {
  return join(cacheDir, `${commit}-f${MATERIALISE_FORMAT}`);
}

/**
 * Extracts `git archive <commit>` (the commit, never the working tree, so
 * nothing uncommitted leaks into the old side), installs and builds it in a
 * private temp sibling, writes the stamp last, then renames it into place.
 * Racing runs each build privately; the loser of the rename uses the winner's.
 */
export async function materialise(opts: MaterialiseOptions): Promise<Materialised> {
  if (!/^[0-9a-f]{40,64}$/.test(opts.commit)) throw new CompatError('GIT_FAILED', `materialise needs a full commit id, got ${JSON.stringify(opts.commit)}`);
  const final = cacheEntryDir(opts.cacheDir, opts.commit);
  const cached = checkStamp(final, opts.commit);
  if (cached.ok) return { dir: final, fromCache: true };
  if (cached.damaged) opts.progress.note(`the cached build of ${opts.commit.slice(0, 12)} does not match its recorded content hash: rebuilding it`);

  await mkdir(opts.cacheDir, { recursive: true });
  const temp = join(opts.cacheDir, `.tmp-${opts.commit.slice(0, 12)}-${process.pid}-${randomBytes(4).toString('hex')}`);
  const untrack = trackTempDir(temp);
  try {
    await mkdir(temp);
    const extract = opts.progress.step(`extract ${opts.commit.slice(0, 12)}`);
    const archived = await execa('git', ['archive', '--format=tar', opts.commit], { cwd: opts.repo, reject: false, all: true })
      .pipe('tar', ['-x', '-C', temp], { reject: false, all: true });
    if (archived.exitCode !== 0) {
      extract.fail();
      throw new CompatError('EXTRACT_FAILED', `git archive ${opts.commit} | tar -x failed: ${tailLines(String(archived.all ?? ''))}`);
    }
    extract.done();

    const install = opts.progress.step('install baseline dependencies');
    const how = await installDependencies(temp, opts.reuseDependenciesFrom).catch((e: unknown) => {
      install.fail();
      throw e;
    });
    install.done(how);

    const build = opts.progress.step('build baseline');
    if (installAlreadyBuilt(temp, how)) build.done('built by its install (prepare)');
    else {
      await buildProject(temp).catch((e: unknown) => {
        build.fail();
        throw e;
      });
      build.done();
    }

    await bundlePeer(temp, opts.progress);
    const stamp: Stamp = { format: MATERIALISE_FORMAT, commit: opts.commit, dependencies: how, contentHash: entryHash(temp) };
    await writeFile(join(temp, STAMP_FILE), JSON.stringify(stamp) + '\n');
    return await moveIntoPlace(temp, final, opts.commit);
  } finally {
    await rm(temp, { recursive: true, force: true });
    untrack();
  }
}

/**
 * A release built before its build bundled its entries gets its peer bundled
 * here (bundle-entries.ts): the gate starts it once per pairing, and half of
 * each start is module loading. The code is the release's, module for module;
 * if it cannot be bundled, its peer starts from dist as built.
 */
async function bundlePeer(dir: string, progress: Progress): Promise<void> {
  if (existsSync(join(dir, BUNDLE_DIR)) || !existsSync(join(dir, BUNDLED_ENTRIES.peer))) return;
  const step = progress.step('bundle the baseline peer');
  try {
    await bundleEntries(dir, { peer: BUNDLED_ENTRIES.peer });
    step.done();
  } catch (e) {
    await rm(join(dir, BUNDLE_DIR), { recursive: true, force: true });
    step.done(`left unbundled: ${String((e as Error).message).split('\n')[0]}`);
  }
}

async function moveIntoPlace(temp: string, final: string, commit: string): Promise<Materialised> {
  // A directory without a good stamp is a leftover (older format, killed run): redo it.
  if (existsSync(final) && !readStamp(final, commit)) await rm(final, { recursive: true, force: true });
  try {
    await rename(temp, final);
    return { dir: final, fromCache: false };
  } catch (e) {
    // Another run finished first: its build is as good as ours.
    if (readStamp(final, commit)) return { dir: final, fromCache: true };
    throw e;
  }
}
