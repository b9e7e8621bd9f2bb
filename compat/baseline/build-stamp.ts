import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gitMaybe } from './git.js';
import { workingTreeId } from './working-tree.js';

/** In dist/ on purpose: deleting the build deletes the claim that it is up to date. */
export const BUILD_STAMP = join('dist', '.termwire-tree');

/** The working-tree id (a content hash of every non-ignored source) that dist/ was built from, if stamped. */
export function readBuildStamp(root: string): string | undefined {
  try {
    return readFileSync(join(root, BUILD_STAMP), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function writeBuildStamp(root: string, tree: string): void {
  mkdirSync(dirname(join(root, BUILD_STAMP)), { recursive: true });
  writeFileSync(join(root, BUILD_STAMP), tree + '\n');
}

/**
 * Stamps `root`'s fresh build with its working-tree id, when `root` is itself
 * a git checkout's top level. A checkout nested in another repository (a
 * baseline extracted under .termwire/compat) or a package installed from a
 * tarball is not stamped: its tree id would be the outer repository's.
 */
export async function stampFreshBuild(root: string): Promise<string | undefined> {
  const top = await gitMaybe(root, ['rev-parse', '--show-toplevel']);
  if (!top || realpathSync(top) !== realpathSync(root)) return undefined;
  const tree = await workingTreeId(root);
  writeBuildStamp(root, tree);
  return tree;
}
