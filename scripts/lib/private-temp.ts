import { mkdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { unsafeDirectoryUpFrom } from '../../src/cli/token-file.js';

/**
 * A temp directory a token file may sit in: `termwire serve` refuses one whose
 * directories up to the root others can write, as sshd's StrictModes does, and
 * a shared /tmp (mode 1777) is such a directory. The system's temp dir when it
 * passes, else ~/.cache/termwire/tmp (created 0700).
 */
export function privateTempRoot(): string {
  if (!unsafeDirectoryUpFrom(tmpdir())) return tmpdir();
  const root = join(homedir(), '.cache', 'termwire', 'tmp');
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const problem = unsafeDirectoryUpFrom(root);
  if (problem) throw new Error(`no private temp directory for token files: ${problem.message}`);
  return root;
}
