import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PairingRecording } from '../recording.js';
import { disturbancesOf } from './disturbances.js';

/**
 * Old × old recordings kept between gate runs. They depend on the baseline
 * build, the journey code that drove them and the node that ran them, never on
 * the working tree, so a maintainer's second run (and every self-test fixture)
 * skips re-recording the baseline against itself. The key names all of that;
 * anything the key misses would make the gate compare against a stale
 * reference, so it errs wide: every file of the running gate's compat code.
 */
export interface ReferenceCache {
  readonly dir: string;
  readonly baselineCommit: string;
  /** Record afresh and replace what is kept: the gate's confirming walk, which must not trust a reference a busy machine may have disturbed. */
  readonly refresh?: boolean;
}

/**
 * References kept at most (each 5–10 MB: a burst's frames in hex); the oldest
 * go first. Explore writes one per seed, so a long sweep must not fill the disk.
 */
export const REFERENCE_CACHE_MAX_ENTRIES = 64;

let codeHash: string | undefined;

/**
 * Every file of the compat code this process runs (the journey, the peer
 * driver, the proxy, the recorder): built .js, or .ts when run from source;
 * and what draws a reference's snapshots into the screens it records (the
 * screen code, the xterm it runs on and its addons), which a fresh recording must agree with.
 */
function runningCompatCodeHash(): string {
  if (codeHash) return codeHash;
  const compatDir = join(dirname(fileURLToPath(import.meta.url)), '..');
  const hash = createHash('sha256');
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : /\.[jt]s$/.test(e.name) ? [join(dir, e.name)] : []));
  for (const dir of [compatDir, join(compatDir, '..', 'src', 'screen')]) {
    for (const file of walk(dir).sort()) hash.update(relative(compatDir, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  // The addons too: Unicode 11's widths shape every cell a snapshot draws.
  for (const pkg of ['@xterm/headless', '@xterm/addon-unicode11', '@xterm/addon-serialize']) hash.update(`${pkg}@${createRequire(import.meta.url)(`${pkg}/package.json`).version}\0`);
  return (codeHash = hash.digest('hex'));
}

/** The file for one reference: the baseline, the running code and node, and whatever the caller says shaped the journey. */
function referenceFile(cache: ReferenceCache, shape: unknown): string {
  const key = createHash('sha256').update(JSON.stringify({ baseline: cache.baselineCommit, code: runningCompatCodeHash(), node: process.version, shape })).digest('hex');
  return join(cache.dir, 'references', `${key}.json`);
}

/**
 * The cached recording for this journey shape, or `record()`'s, which is kept
 * when it walked every step and nothing disturbed it (disturbancesOf: a client
 * that gave up a link the proxy kept up, a host that gave up on a slow client);
 * a stalled or disturbed reference is never reused, the next run records it
 * again. Written whole under a temporary name, then renamed, so runs racing on
 * one cache never read half a file.
 */
export async function cachedReference(cache: ReferenceCache | undefined, shape: unknown, record: () => Promise<PairingRecording>): Promise<PairingRecording> {
  if (!cache) return record();
  const file = referenceFile(cache, shape);
  try {
    if (!cache.refresh) return JSON.parse(readFileSync(file, 'utf8')) as PairingRecording;
  } catch {
    // Absent or unreadable: record it.
  }
  const recording = await record();
  if (recording.steps.every((s) => s.status !== 'stalled') && !disturbancesOf([recording]).length) {
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(partial, JSON.stringify(recording));
    renameSync(partial, file);
    pruneOldest(dirname(file), REFERENCE_CACHE_MAX_ENTRIES);
  }
  return recording;
}

/** Deletes the oldest references past `keep`; one another run is deleting at the same time is already gone. */
function pruneOldest(dir: string, keep: number): void {
  const entries = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ path: join(dir, name), mtimeMs: statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const old of entries.slice(keep)) rmSync(old.path, { force: true });
}
