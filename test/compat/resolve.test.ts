import { symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { listReleases, resolveBaselines } from '../../compat/baseline/resolve.js';
import { parseAgainst, validateRef } from '../../compat/baseline/validate-ref.js';
import { workingTreeId } from '../../compat/baseline/working-tree.js';
import { CompatError } from '../../compat/errors.js';
import { createTempRepo, type TempRepo } from './helpers/temp-repo.js';

const repos: TempRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));
async function repo(): Promise<TempRepo> {
  const r = await createTempRepo();
  repos.push(r);
  return r;
}
const opts = { includePrerelease: false };

async function rejection(p: Promise<unknown>): Promise<CompatError> {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(CompatError);
  return e as CompatError;
}

describe('baseline resolution', () => {
  it('picks the newest vX.Y.Z tag by semver, not by name or date', async () => {
    const r = await repo();
    const v9 = await r.commit('nine', { 'package.json': '{"version":"0.9.0"}' });
    await r.git('tag', 'v0.9.0');
    const v10 = await r.commit('ten', { 'package.json': '{"version":"0.10.0"}' });
    await r.git('tag', 'v0.10.0');
    await r.git('tag', 'other-9.9.9', v9); // another tag family never counts
    await r.commit('work in progress');
    const [b] = await resolveBaselines(r.dir, { kind: 'latest' }, opts);
    expect(b).toEqual({ label: 'v0.10.0', commit: v10, version: '0.10.0' });
  });

  it('finds releases by commit subject in a clone without tags, ignoring the phrase outside the subject', async () => {
    const r = await repo();
    const rel = await r.commit('release: v1.2.0');
    await r.commit('fix: mention\n\nrelease: v9.0.0 appears only in this body');
    await r.commit('bump to: v3.0.0\n\nprepares release: v3.0.0'); // the subject is not a release subject
    await r.commit('later work');
    const releases = await listReleases(r.dir, false);
    expect(releases).toEqual([{ version: '1.2.0', commit: rel, via: 'subject' }]);
  });

  it('leaves pre-releases out unless asked', async () => {
    const r = await repo();
    await r.commit('release: v1.0.0');
    const pre = await r.commit('rc');
    await r.git('tag', 'v1.1.0-rc.1');
    await r.commit('more');
    expect((await resolveBaselines(r.dir, { kind: 'latest' }, opts))[0]!.label).toBe('v1.0.0');
    const withPre = await resolveBaselines(r.dir, { kind: 'latest' }, { includePrerelease: true });
    expect(withPre[0]).toMatchObject({ label: 'v1.1.0-rc.1', commit: pre });
  });

  it('last:N returns the N newest releases, newest first', async () => {
    const r = await repo();
    for (const v of ['1.0.0', '1.1.0', '2.0.0']) await r.commit(`release: v${v}`);
    await r.commit('work');
    const notes: string[] = [];
    const two = await resolveBaselines(r.dir, parseAgainst('last:2'), { ...opts, onNote: (m) => notes.push(m) });
    expect(two.map((b) => b.label)).toEqual(['v2.0.0', 'v1.1.0']);
    const five = await resolveBaselines(r.dir, parseAgainst('last:5'), { ...opts, onNote: (m) => notes.push(m) });
    expect(five).toHaveLength(3);
    expect(notes.join('\n')).toContain('only 3 release(s)');
  });

  it('--against <ref> resolves a branch or commit, and says when it is not a release', async () => {
    const r = await repo();
    const first = await r.commit('first');
    await r.commit('second');
    const notes: string[] = [];
    const [b] = await resolveBaselines(r.dir, parseAgainst('HEAD~1'), { ...opts, onNote: (m) => notes.push(m) });
    expect(b!.commit).toBe(first);
    expect(notes.join('\n')).toContain('HEAD~1 (' + first.slice(0, 12) + ') is not a release');
  });

  it('a release name resolves by its tag, or by its release commit in a clone without tags', async () => {
    const r = await repo();
    const rel = await r.commit('release: v1.2.0', { 'package.json': '{"version":"1.2.0"}' });
    await r.commit('later work');
    const notes: string[] = [];
    const byCommit = await resolveBaselines(r.dir, parseAgainst('v1.2.0'), { ...opts, onNote: (m) => notes.push(m) });
    expect(byCommit).toEqual([{ label: 'v1.2.0', commit: rel, version: '1.2.0' }]);
    expect(notes).toEqual([]); // a release is not announced as "not a release"
    const tagged = await r.commit('release: v1.3.0', { 'package.json': '{"version":"1.3.0"}' });
    await r.git('tag', 'v1.3.0');
    await r.commit('more work');
    expect((await resolveBaselines(r.dir, parseAgainst('v1.3.0'), opts))[0]).toMatchObject({ label: 'v1.3.0', commit: tagged });
  });

  it('a typo in --against says "no such ref" and lists the releases, with no fetch advice in a full clone', async () => {
    const r = await repo();
    await r.commit('release: v1.2.0');
    await r.commit('later work');
    const e = await rejection(resolveBaselines(r.dir, parseAgainst('v1.2.O'), opts));
    expect(e.code).toBe('NO_BASELINE');
    expect(e.message).toContain('--against v1.2.O: no such ref');
    expect(e.message).toContain('Releases in this clone: v1.2.0');
    expect(e.message).not.toMatch(/fetch-depth|--unshallow/);
  });

  it('no release at all is exit 2 with the fix named; a full clone is not told about fetch depth', async () => {
    const r = await repo();
    await r.commit('initial');
    const e = await rejection(resolveBaselines(r.dir, { kind: 'latest' }, opts));
    expect(e.code).toBe('NO_BASELINE');
    expect(e.exitCode).toBe(2);
    for (const fix of ['git fetch --tags', '--against <ref>', 'npm run release']) expect(e.message).toContain(fix);
    expect(e.message).not.toMatch(/fetch-depth|--unshallow/);
  });

  it('a shallow clone is recognised: the advice is git fetch --unshallow (and fetch-depth: 0 in CI)', async () => {
    const r = await repo();
    await r.commit('release: v1.0.0');
    await r.commit('work after the release');
    const shallow = await repo();
    shallow.remove();
    await execa('git', ['clone', '-q', '--depth', '1', `file://${r.dir}`, shallow.dir]);
    const e = await rejection(resolveBaselines(shallow.dir, { kind: 'latest' }, opts));
    expect(e.code).toBe('NO_BASELINE');
    expect(e.message).toContain('shallow');
    expect(e.message).toContain('git fetch --unshallow');
    expect(e.message).toContain('fetch-depth: 0');
    const typo = await rejection(resolveBaselines(shallow.dir, parseAgainst('v1.0.0'), opts));
    expect(typo.message).toContain('git fetch --unshallow');
  });

  it('a baseline whose tree equals the working tree is refused; an uncommitted change makes them differ', async () => {
    const r = await repo();
    await r.commit('release: v1.0.0');
    const e = await rejection(resolveBaselines(r.dir, { kind: 'latest' }, opts));
    expect(e.code).toBe('SAME_TREE');
    expect(e.message).toContain('--against');
    r.write('file.txt', 'edited but not committed\n');
    expect(await resolveBaselines(r.dir, { kind: 'latest' }, opts)).toHaveLength(1);
    // The user's own index is untouched by the throwaway-index trick.
    expect(await r.git('diff', '--cached', '--name-only')).toBe('');
  });

  it('on a release commit, latest passes over the release equal to the working tree, says so, and takes the one before', async () => {
    const r = await repo();
    const v1 = await r.commit('release: v0.1.0', { 'package.json': '{"version":"0.1.0"}' });
    await r.commit('work');
    await r.commit('release: v0.2.0', { 'package.json': '{"version":"0.2.0"}' }); // HEAD: the newest release is this tree
    const notes: string[] = [];
    const baselines = await resolveBaselines(r.dir, { kind: 'latest' }, { ...opts, onNote: (m) => notes.push(m) });
    expect(baselines).toEqual([{ label: 'v0.1.0', commit: v1, version: '0.1.0' }]);
    expect(notes).toEqual(['skipping v0.2.0: its tree equals the working tree; comparing against v0.1.0']);
  });

  it('on a release commit, last:N takes the N newest releases whose trees differ', async () => {
    const r = await repo();
    for (const v of ['1.0.0', '1.1.0', '2.0.0']) await r.commit(`release: v${v}`);
    const notes: string[] = [];
    const two = await resolveBaselines(r.dir, parseAgainst('last:2'), { ...opts, onNote: (m) => notes.push(m) });
    expect(two.map((b) => b.label)).toEqual(['v1.1.0', 'v1.0.0']);
    expect(notes).toEqual(['skipping v2.0.0: its tree equals the working tree; comparing against v1.1.0, v1.0.0']);
    notes.length = 0;
    const five = await resolveBaselines(r.dir, parseAgainst('last:5'), { ...opts, onNote: (m) => notes.push(m) });
    expect(five.map((b) => b.label)).toEqual(['v1.1.0', 'v1.0.0']);
    expect(notes.join('\n')).toContain('only 2 release(s) found for last:5 (and v2.0.0, whose tree equals the working tree)');
  });

  it('an explicit --against whose tree equals the working tree is still SAME_TREE, even with older releases', async () => {
    const r = await repo();
    await r.commit('release: v0.1.0');
    await r.commit('release: v0.2.0');
    for (const ref of ['v0.2.0', 'HEAD']) {
      const e = await rejection(resolveBaselines(r.dir, parseAgainst(ref), opts));
      expect(e.code).toBe('SAME_TREE');
      expect(e.exitCode).toBe(2);
      expect(e.message).toContain(`--against ${ref}: `);
    }
  });

  it('the first release, on its own release commit: SAME_TREE, saying there is no older release', async () => {
    const r = await repo();
    await r.commit('initial work');
    await r.commit('release: v0.1.0');
    for (const spec of [{ kind: 'latest' } as const, parseAgainst('last:3')]) {
      const e = await rejection(resolveBaselines(r.dir, spec, opts));
      expect(e.code).toBe('SAME_TREE');
      expect(e.message).toContain('the only release, v0.1.0, has the same tree as the working tree');
      expect(e.message).toContain('no older release');
    }
  });

  it('an untracked new file counts as a change, an ignored one does not', async () => {
    const r = await repo();
    await r.commit('release: v1.0.0', { '.gitignore': 'ignored/\n' });
    const released = await workingTreeId(r.dir);
    r.write('ignored/junk.txt', 'x');
    expect(await workingTreeId(r.dir)).toBe(released);
    r.write('new.txt', 'x');
    expect(await workingTreeId(r.dir)).not.toBe(released);
  });

  it('an untracked node_modules, even a symlink that .gitignore\'s node_modules/ misses, never changes the id', async () => {
    const r = await repo();
    await r.commit('release: v1.0.0', { '.gitignore': 'node_modules/\n', 'src.txt': 'x\n' });
    const released = await workingTreeId(r.dir);
    symlinkSync(tmpdir(), join(r.dir, 'node_modules'));
    r.write('packages/a/node_modules/dep/index.js', 'x');
    expect(await workingTreeId(r.dir)).toBe(released);
    const e = await rejection(resolveBaselines(r.dir, { kind: 'latest' }, opts));
    expect(e.code).toBe('SAME_TREE');
  });
});

describe('ref validation', () => {
  it.each([
    ['-c', 'leading "-"'],
    ['--upload-pack=evil', 'leading "-"'],
    ['v1..v2', '".."'],
    ['main; rm -rf /', 'character'],
    ['a b', 'character'],
    ['$(id)', 'character'],
    ['`id`', 'character'],
    ['a|b', 'character'],
    ['', 'empty'],
    ['x'.repeat(201), '201 characters; a ref may have at most 200'],
  ])('refuses %j (%s)', (ref, why) => {
    expect(() => validateRef(ref)).toThrowError(CompatError);
    expect(() => validateRef(ref)).toThrowError(why);
  });

  it.each(['v1.2.3', 'main', 'origin/release-1', 'HEAD~2', 'abc123^', 'refs/tags/v1.0.0'])('accepts %j', (ref) => {
    expect(validateRef(ref)).toBe(ref);
  });

  it('last:N is bounded', () => {
    expect(parseAgainst('last:3')).toEqual({ kind: 'last', count: 3 });
    expect(() => parseAgainst('last:0')).toThrowError('from 1 to 20');
    expect(() => parseAgainst('last:21')).toThrowError('from 1 to 20');
    expect(() => parseAgainst('last:21')).not.toThrowError('maxLastN');
    expect(() => parseAgainst('last:x')).toThrowError(CompatError);
  });
});
