import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../baseline/git.js';
import { workingTreeId } from '../baseline/working-tree.js';
import { enumerateMutants } from './enumerate.js';
import { applyMutant } from './mutant.js';
import { createScratch } from './scratch.js';

describe('the scratch checkout', () => {
  it('holds the working tree with one mutant at a time, a tree id of its own per mutant, and the releases to compare against', async () => {
    const root = process.cwd();
    const mutant = (await enumerateMutants(root)).find((m) => m.file === 'src/codec/header.ts')!;
    const scratch = await createScratch(root);
    try {
      const path = join(scratch.dir, mutant.file);
      expect(readFileSync(path, 'utf8')).toBe(readFileSync(join(root, mutant.file), 'utf8'));
      expect(realpathSync(join(scratch.dir, 'node_modules'))).toBe(realpathSync(join(root, 'node_modules')));
      expect(await git(scratch.dir, ['log', '--format=%s', '--grep=^release: v', '-1'])).toMatch(/^release: v\d+\.\d+\.\d+$/);
      const clean = await workingTreeId(scratch.dir);
      const restore = scratch.apply(mutant);
      expect(readFileSync(path, 'utf8')).toBe(applyMutant(readFileSync(join(root, mutant.file), 'utf8'), mutant));
      const mutated = await workingTreeId(scratch.dir);
      expect(mutated).not.toBe(clean);
      restore();
      expect(await workingTreeId(scratch.dir)).toBe(clean);
    } finally {
      scratch.remove();
    }
    expect(existsSync(scratch.dir)).toBe(false);
  });

  it('refuses to splice a mutant where the source no longer holds its original text', async () => {
    const mutant = (await enumerateMutants(process.cwd())).find((m) => m.file === 'src/codec/header.ts')!;
    expect(() => applyMutant('// moved\n' + readFileSync(mutant.file, 'utf8'), mutant)).toThrow(/expected/);
  });
});
