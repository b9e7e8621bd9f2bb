import { copyFileSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { trackTempDir } from '../cleanup.js';
import { git } from '../baseline/git.js';
import type { WireMutant } from './mutant.js';
import { applyMutant } from './mutant.js';

/**
 * A checkout the mutants are spliced into, one at a time: a clone sharing the
 * project's objects (so the gate finds the same releases in its history),
 * holding the working tree's files as they are now, uncommitted ones included,
 * with the project's node_modules linked in. The gate judges this checkout
 * while it runs from the project's own unmutated build, as CI's trusted-base
 * gate judges a pull request: a mutant in the codec cannot blind the harness
 * that decodes the recordings.
 */
export interface Scratch {
  readonly dir: string;
  /** Splices `m` in; the returned function puts the original file back. */
  apply(m: WireMutant): () => void;
  remove(): void;
}

export async function createScratch(root: string): Promise<Scratch> {
  const dir = await mkdtemp(join(tmpdir(), 'termwire-mutation-'));
  const untrack = trackTempDir(dir);
  const remove = () => {
    rmSync(dir, { recursive: true, force: true });
    untrack();
  };
  try {
    const head = await git(root, ['rev-parse', '--verify', 'HEAD']);
    await git(root, ['clone', '--quiet', '--shared', '--no-checkout', '--', root, dir]);
    await git(dir, ['checkout', '--quiet', '--detach', head]);
    const listed = (args: string[]) => git(root, ['ls-files', '-z', ...args]).then((out) => out.split('\0').filter(Boolean));
    const deleted = new Set(await listed(['--deleted']));
    for (const file of await listed(['--cached', '--others', '--exclude-standard'])) {
      if (deleted.has(file)) {
        rmSync(join(dir, file), { force: true });
        continue;
      }
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      copyFileSync(join(root, file), join(dir, file));
    }
    symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'), 'dir');
  } catch (e) {
    remove();
    throw e;
  }
  return {
    dir,
    apply(m) {
      const path = join(dir, m.file);
      const original = readFileSync(path, 'utf8');
      writeFileSync(path, applyMutant(original, m));
      return () => writeFileSync(path, original);
    },
    remove,
  };
}
