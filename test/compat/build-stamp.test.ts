import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILD_STAMP, readBuildStamp, stampFreshBuild } from '../../compat/baseline/build-stamp.js';
import { workingTreeId } from '../../compat/baseline/working-tree.js';
import { createTempRepo, type TempRepo } from './helpers/temp-repo.js';

const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));

describe('the build stamp `npm run build` writes', () => {
  it('names the working tree the gate computes, so a build made by npm ci\'s prepare counts as current', async () => {
    const r = await createTempRepo();
    repos.push(r);
    await r.commit('initial', { '.gitignore': 'dist/\n', 'src.ts': 'export {};\n' });
    r.write('src.ts', 'export const edited = 1;\n');
    expect(await stampFreshBuild(r.dir)).toBe(await workingTreeId(r.dir));
    expect(readBuildStamp(r.dir)).toBe(await workingTreeId(r.dir));
  });

  it('is not written for a checkout nested in another repository (a baseline extracted under .termwire/compat)', async () => {
    const r = await createTempRepo();
    repos.push(r);
    await r.commit('initial', { '.gitignore': '.termwire/\n' });
    const nested = join(r.dir, '.termwire', 'compat', 'baseline');
    mkdirSync(nested, { recursive: true });
    expect(await stampFreshBuild(nested)).toBeUndefined();
    expect(existsSync(join(nested, BUILD_STAMP))).toBe(false);
  });
});
