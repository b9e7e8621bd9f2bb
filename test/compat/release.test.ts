import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listReleases } from '../../compat/baseline/resolve.js';
import { release, ReleaseError } from '../../scripts/release.js';
import { createTempRepo, type TempRepo } from './helpers/temp-repo.js';

const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));
async function project(): Promise<TempRepo> {
  const r = await createTempRepo();
  repos.push(r);
  await r.commit('Initial skeleton', {
    'package.json': JSON.stringify({ name: 'termwire', version: '0.0.0' }, null, 2) + '\n',
    'package-lock.json': JSON.stringify({ name: 'termwire', version: '0.0.0', lockfileVersion: 3, packages: { '': { name: 'termwire', version: '0.0.0' } } }, null, 2) + '\n',
  });
  return r;
}
const json = (r: TempRepo, f: string) => JSON.parse(readFileSync(join(r.dir, f), 'utf8'));

describe('npm run release', () => {
  it('bumps, writes the changelog, commits "release: vX.Y.Z" and an annotated tag the gate finds', async () => {
    const r = await project();
    await r.commit('Add the codec');
    const first = await release(r.dir, '0.1.0', new Date('2030-01-02T00:00:00Z'));
    expect(first).toMatchObject({ version: '0.1.0', tag: 'v0.1.0' });
    expect(await r.git('log', '-1', '--format=%s')).toBe('release: v0.1.0');
    expect(await r.git('cat-file', '-t', 'v0.1.0')).toBe('tag'); // annotated, not lightweight
    expect(json(r, 'package.json').version).toBe('0.1.0');
    expect(json(r, 'package-lock.json').version).toBe('0.1.0');
    expect(json(r, 'package-lock.json').packages[''].version).toBe('0.1.0');
    expect(await r.git('status', '--porcelain')).toBe('');

    await r.commit('Add the host');
    await release(r.dir, 'minor', new Date('2030-02-03T00:00:00Z'));
    const changelog = readFileSync(join(r.dir, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toBe('# Changelog\n\n## v0.2.0 (2030-02-03)\n\n- Add the host\n\n## v0.1.0 (2030-01-02)\n\n- Add the codec\n- Initial skeleton\n');

    expect((await listReleases(r.dir, false)).map((x) => `${x.version} ${x.via}`)).toEqual(['0.2.0 tag', '0.1.0 tag']);
    await r.git('tag', '-d', 'v0.1.0');
    await r.git('tag', '-d', 'v0.2.0');
    expect((await listReleases(r.dir, false)).map((x) => `${x.version} ${x.via}`)).toEqual(['0.2.0 subject', '0.1.0 subject']);
  });

  it('refuses a dirty tree, a version not above the current, an existing tag and a bad spec', async () => {
    const r = await project();
    r.write('notes.txt', 'uncommitted');
    await expect(release(r.dir, 'patch')).rejects.toThrowError(/uncommitted changes/);
    await r.commit('notes');
    await expect(release(r.dir, '0.0.0')).rejects.toThrowError(/not above the current 0.0.0/);
    await expect(release(r.dir, 'huge')).rejects.toThrowError(ReleaseError);
    await r.git('tag', 'v0.0.1');
    await expect(release(r.dir, 'patch')).rejects.toThrowError(/tag v0.0.1 already exists/);
    expect(json(r, 'package.json').version).toBe('0.0.0');
  });
});
