import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface ContentHashOptions {
  /** Paths (relative to the root) left out: the stamp that records the hash. */
  readonly skip?: readonly string[];
  /**
   * Directories hashed by each file's path and size only: an installed
   * node_modules holds thousands of files, and reading them all on every run
   * would cost more than the check saves.
   */
  readonly sizesOnlyUnder?: readonly string[];
}

/**
 * A sha256 over every file under `root`, in a fixed order: its path and its
 * bytes (or size), and a symlink's target text (never followed, so a link to
 * another checkout's node_modules does not pull that tree in).
 */
export function contentHash(root: string, opts: ContentHashOptions = {}): string {
  const hash = createHash('sha256');
  const skip = new Set(opts.skip ?? []);
  const sizesOnly = opts.sizesOnlyUnder ?? [];
  const walk = (dir: string, sizeOnly: boolean): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, entry.name);
      const rel = relative(root, path);
      if (skip.has(rel)) continue;
      if (entry.isSymbolicLink()) hash.update(`link ${rel}\0${readlinkSync(path)}\0`);
      else if (entry.isDirectory()) walk(path, sizeOnly || sizesOnly.includes(rel));
      else if (entry.isFile()) {
        hash.update(`file ${rel}\0`);
        hash.update(sizeOnly ? `${statSync(path).size}` : readFileSync(path));
        hash.update('\0');
      }
    }
  };
  walk(root, false);
  return hash.digest('hex');
}
