import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listReleases } from '../../compat/baseline/resolve.js';
import type { GateReport } from '../../compat/report/model.js';
import { release, ReleaseError } from '../../scripts/release.js';
import { audienceOf, changelogEntry, headline, parseReleaseNotes } from '../../scripts/release/changelog.js';
import { CheckFailed, type ReleaseChecks } from '../../scripts/release/checks.js';
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

/** The checks as they come out on a real tree: npm test passed, and the gate said this (the real ones run in .ci/run). */
const gateSays = (report: Partial<GateReport>, testFails = false): ReleaseChecks => ({
  test: async () => {
    if (testFails) throw new CheckFailed('npm test failed (exit 1)');
  },
  gate: async () => ({ status: 'compatible', exitCode: 0, baselines: [{ label: 'v0.1.0', commit: 'a'.repeat(40), version: '0.1.0' }], staticOnly: false, rulesRun: [], findings: [], acknowledged: [], staleAcknowledgements: [], ...report }) as GateReport,
});
const firstRelease = gateSays({ status: 'cannotCompare', exitCode: 2, baselines: [], error: { kind: 'cannotCompare', code: 'NO_BASELINE', message: 'no release found' } });
const compatible = gateSays({
  acknowledged: [{ finding: { id: 'F1', ruleId: 'LIMIT_LOWERED', pass: 'static', direction: 'old client × new host', subject: 'maxTitleBytes', message: '', evidence: {} }, entry: 'LIMIT_LOWERED · old client × new host · maxTitleBytes', reason: 'titles past 4 KiB were abuse', owner: 'host-team', expires: '2030-06-01' }],
  coverage: [{ baseline: 'v0.1.0', directions: [{ direction: 'old client × new host', counts: Object.fromEntries(['opcode', 'field', 'event', 'flag', 'error', 'capability'].map((k) => [k, { exercised: 14, applicable: 16, exempt: 1 }])) }], uncovered: [], notApplicable: [] } as never],
});

describe('npm run release', () => {
  it('bumps, writes the changelog, commits "release: vX.Y.Z" and an annotated tag the gate finds', async () => {
    const r = await project();
    await r.commit('Add the codec. Frames of 16 bytes', { 'src/codec/header.ts': 'export {};\n' });
    const first = await release(r.dir, '0.1.0', { today: new Date('2030-01-02T00:00:00Z'), checks: firstRelease });
    expect(first).toMatchObject({ version: '0.1.0', tag: 'v0.1.0' });
    expect(await r.git('log', '-1', '--format=%s')).toBe('release: v0.1.0');
    expect(await r.git('cat-file', '-t', 'v0.1.0')).toBe('tag'); // annotated, not lightweight
    expect(json(r, 'package.json').version).toBe('0.1.0');
    expect(json(r, 'package-lock.json').version).toBe('0.1.0');
    expect(json(r, 'package-lock.json').packages[''].version).toBe('0.1.0');
    expect(await r.git('status', '--porcelain')).toBe('');

    await r.commit('Host: serve real terminals; why it matters', { 'src/host/runtime.ts': 'export {};\n', 'src/host/runtime.test.ts': '\n' });
    await r.commit('Test the host harder', { 'test/host/more.test.ts': '\n' });
    await release(r.dir, 'minor', { today: new Date('2030-02-03T00:00:00Z'), checks: compatible });
    const changelog = readFileSync(join(r.dir, 'CHANGELOG.md'), 'utf8');
    expect(changelog.split('\n')).toEqual(
      [
        '# Changelog',
        '',
        '## v0.2.0 (2030-02-03)',
        '',
        '### Host',
        '',
        '- Host: serve real terminals',
        '',
        'And 1 internal change(s): tests, benchmarks, tooling.',
        '',
        '### Compatibility',
        '',
        '    termwire compat against v0.1.0 (aaaaaaaaaaaa): compatible, 0 finding(s), 1 acknowledged',
        '    acknowledged LIMIT_LOWERED · old client × new host · maxTitleBytes: titles past 4 KiB were abuse',
        expect.stringMatching(/^ {4}coverage old client × new host: opcodes 14\/16/) as unknown as string,
        '',
        '## v0.1.0 (2030-01-02)',
        '',
        '### Wire',
        '',
        '- Add the codec',
        '',
        'And 1 internal change(s): tests, benchmarks, tooling.',
        '',
        '### Compatibility',
        '',
        '    The first release: there is no earlier release to gate against.',
        '',
      ],
    );
    expect(await r.git('tag', '-l', '--format=%(contents)', 'v0.2.0')).toContain('### Compatibility');

    expect((await listReleases(r.dir, false)).map((x) => `${x.version} ${x.via}`)).toEqual(['0.2.0 tag', '0.1.0 tag']);
    await r.git('tag', '-d', 'v0.1.0');
    await r.git('tag', '-d', 'v0.2.0');
    expect((await listReleases(r.dir, false)).map((x) => `${x.version} ${x.via}`)).toEqual(['0.2.0 subject', '0.1.0 subject']);
  });

  it('refuses a dirty tree, a version not above the current, an existing tag and a bad spec', async () => {
    const r = await project();
    r.write('notes.txt', 'uncommitted');
    await expect(release(r.dir, 'patch', { checks: compatible })).rejects.toThrowError(/uncommitted changes/);
    await r.commit('notes');
    await expect(release(r.dir, '0.0.0', { checks: compatible })).rejects.toThrowError(/not above the current 0.0.0/);
    await expect(release(r.dir, 'huge', { checks: compatible })).rejects.toThrowError(ReleaseError);
    await r.git('tag', 'v0.0.1');
    await expect(release(r.dir, 'patch', { checks: compatible })).rejects.toThrowError(/tag v0.0.1 already exists/);
    expect(json(r, 'package.json').version).toBe('0.0.0');
  });

  it('refuses a branch other than main, unless told why, and records the why in the release commit', async () => {
    const r = await project();
    await r.git('checkout', '-q', '-b', 'feature');
    await expect(release(r.dir, 'patch', { checks: compatible })).rejects.toThrowError(/on branch feature, not main: .*--off-main "<reason>"/);
    await expect(release(r.dir, 'patch', { checks: compatible, offMainBecause: '  ' })).rejects.toThrowError(/not main/);
    expect(json(r, 'package.json').version).toBe('0.0.0');
    await release(r.dir, 'patch', { checks: compatible, offMainBecause: 'a hotfix for v0.0.x users' });
    expect(await r.git('log', '-1', '--format=%B')).toContain('Released from feature, not main: a hotfix for v0.0.x users');
  });

  it('refuses release notes it cannot place before it runs any check, and writes nothing', async () => {
    const r = await project();
    let checked = false;
    const watched: ReleaseChecks = { ...compatible, test: async () => void (checked = true) };
    await expect(release(r.dir, 'patch', { checks: watched, notes: '### Wire\n\n- x\n### Server\n\n- y\n' })).rejects.toThrowError("release notes: '### Server' is not an audience (Wire, Host, Client, Gate, Docs)");
    expect(checked).toBe(false);
    expect(await r.git('status', '--porcelain')).toBe('');
  });

  it.each([
    ['npm test fails', gateSays({}, true), /npm test failed \(exit 1\); nothing was released/],
    ['the gate finds a break', gateSays({ status: 'incompatible', exitCode: 1, findings: [{} as never] }), /the gate found 1 break\(s\) against v0.1.0.*nothing was released/],
    ['the gate cannot compare', gateSays({ status: 'cannotCompare', exitCode: 2, error: { kind: 'cannotCompare', code: 'BUILD_FAILED', message: 'tsc failed' } }), /could not compare \(BUILD_FAILED\): tsc failed; nothing was released/],
  ])('refuses when %s, and leaves the tree and history as they were', async (_what, checks, why) => {
    const r = await project();
    const head = await r.git('rev-parse', 'HEAD');
    await expect(release(r.dir, 'patch', { checks })).rejects.toThrowError(why);
    expect(await r.git('rev-parse', 'HEAD')).toBe(head);
    expect(await r.git('status', '--porcelain')).toBe('');
    expect(await r.git('tag', '-l')).toBe('');
  });
});

describe('the changelog', () => {
  it('places a commit by the files it touches, not by its words; tests alone are internal', () => {
    expect(audienceOf({ subject: 'Gate: anything', files: ['src/host/runtime.ts', 'compat/run-gate.ts'] })).toBe('Host');
    expect(audienceOf({ subject: 'Host: fix', files: ['src/host/runtime.test.ts', 'test/host/x.test.ts'] })).toBeUndefined();
    expect(audienceOf({ subject: 'x', files: ['src/cli/attach.ts'] })).toBe('Client');
    expect(audienceOf({ subject: 'x', files: ['docs/ci.md'] })).toBe('Gate');
    expect(audienceOf({ subject: 'x', files: ['README.md'] })).toBe('Docs');
    expect(audienceOf({ subject: 'x', files: ['scripts/bench/codec.ts'] })).toBeUndefined();
  });

  it('keeps what changed, not the why after it', () => {
    expect(headline('Gate: step overflowRecovery. The proxy holds the Acks')).toBe('Gate: step overflowRecovery');
    expect(headline('attach: one line; and more')).toBe('attach: one line');
    expect(headline('x'.repeat(300))).toHaveLength(160);
  });

  it("with the release engineer's notes, the notes are the entry and the commits' headlines fold beneath them", () => {
    const commits = [
      { subject: 'Host: serve real terminals; why', files: ['src/host/runtime.ts'] },
      { subject: 'Gate: a lifetime pass', files: ['compat/journey/lifetime-steps.ts'] },
      { subject: 'Test harder', files: ['test/x.test.ts'] },
    ];
    const notes = parseReleaseNotes('### Gate\n\n- The gate observes a detached terminal\'s lifetime.\n\n### Host\n\n- Hosts serve real terminals.\n');
    expect(changelogEntry('v0.2.0', '2030-01-02', commits, ['termwire compat against v0.1.0: compatible'], notes).split('\n')).toEqual([
      '## v0.2.0 (2030-01-02)',
      '',
      '### Host',
      '',
      '- Hosts serve real terminals.',
      '',
      '### Gate',
      '',
      "- The gate observes a detached terminal's lifetime.",
      '',
      '<details><summary>Every change, by commit (2)</summary>',
      '',
      '### Host',
      '',
      '- Host: serve real terminals',
      '',
      '### Gate',
      '',
      '- Gate: a lifetime pass',
      '',
      '</details>',
      '',
      'And 1 internal change(s): tests, benchmarks, tooling.',
      '',
      '### Compatibility',
      '',
      '    termwire compat against v0.1.0: compatible',
      '',
    ]);
  });

  it.each([
    ['text before the first heading', 'Highlights\n### Wire\n- x', /text before the first '### <audience>' heading/],
    ['an empty section', '### Wire\n\n### Host\n- y', /the section '### Wire' is empty/],
    ['no section at all', '', /no '### <audience>' section/],
    ['the Compatibility section, which the gate writes', '### Compatibility\n- all fine', /'### Compatibility' is not an audience/],
  ])('release notes with %s are refused', (_what, text, why) => {
    expect(() => parseReleaseNotes(text)).toThrowError(why);
  });
});
