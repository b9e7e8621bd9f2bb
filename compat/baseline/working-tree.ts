import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackTempDir } from '../cleanup.js';
import { git } from './git.js';

/**
 * Installed dependencies are never part of the sources, however they got
 * there: `.gitignore`'s `node_modules/` matches only a directory, so a
 * symlinked node_modules (a worktree sharing its install, the gate's own
 * reuse) would otherwise change the id and defeat the same-tree guard.
 */
const NEVER_SOURCES = [':(exclude,glob)**/node_modules', ':(exclude,glob)**/node_modules/**'] as const;

/**
 * The tree id of the working tree as it is now, uncommitted and untracked
 * (non-ignored) changes included: staged into a throwaway index so the
 * user's own index is never touched.
 */
export async function workingTreeId(root: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'termwire-index-'));
  const untrack = trackTempDir(dir); // an interrupt must not leave the throwaway index behind
  try {
    // An empty throwaway index: git hashes every file's content. A copy of the user's index would let git
    // trust cached stat data, and an edit of the same size made within the index's own second (a script,
    // the gate's self-test planting a fixture right after a checkout) would look unchanged.
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    await git(root, ['add', '-A', '--', '.', ...NEVER_SOURCES], env);
    return await git(root, ['write-tree'], env);
  } finally {
    await rm(dir, { recursive: true, force: true });
    untrack();
  }
}

export async function treeOfCommit(root: string, commit: string): Promise<string> {
  return git(root, ['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`]);
}
