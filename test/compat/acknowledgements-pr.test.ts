import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compatInProcess as compat, editManifest, standInProject } from './helpers/stand-in-project.js';
import type { TempRepo } from './helpers/temp-repo.js';

// A pull request, shaped as CI sees one: a base branch, and a PR commit on top
// of it that plants a static break (the host stops advertising outputPause)
// and, in the same diff, acknowledges it in its own compat/acknowledged-breaks.json.
// CI runs the gate against the PR's tree with the base branch's acknowledgements
// (`--acknowledgements <the base commit's file>`), so the PR's entry must not count.
//
// The gate runs in-process (trusted code, this checkout) against a stand-in
// project (helpers/stand-in-project.ts): the whole static pipeline, in seconds.

const cleanup: Array<() => void> = [];
beforeEach(() => {
  // Expiry is judged against a fixed day: no test depends on the real date.
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-12-01T12:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
  cleanup.splice(0).forEach((f) => f());
});

const ACKS = 'compat/acknowledged-breaks.json';
const theBreak = { ruleId: 'CAPABILITY_NO_LONGER_ADVERTISED', direction: 'old client × new host', subject: 'capability outputPause' } as const;
const ownEntry = { ...theBreak, reason: 'outputPause is replaced by flow credit in 2.0', owner: '@pr-author', expires: '2027-02-01' };
const unrelated = { ruleId: 'CAPABILITY_REMOVED', direction: 'new client × old host', subject: 'capability legacyEcho', reason: 'an entry the base branch already had', owner: '@wire-team', expires: '2027-01-15' };

/** The base branch (`main`, with `baseAcks` as its file, or none), and a `pr` branch checked out on top of it. */
async function pullRequest(baseAcks: unknown[] | undefined): Promise<{ r: TempRepo; cache: string }> {
  const { r, cache } = await standInProject(cleanup);
  if (baseAcks) await r.commit('acknowledge an old break', { [ACKS]: JSON.stringify(baseAcks) });
  await r.git('checkout', '-q', '-b', 'pr');
  editManifest(r, (m) => {
    delete (m.advertised.host as Record<string, number>).outputPause;
  });
  r.write(ACKS, JSON.stringify([...(baseAcks ?? []), ownEntry]));
  await r.commit('stop advertising outputPause, and acknowledge it', {});
  return { r, cache };
}

/** The base commit's acknowledgements, as CI extracts them (`git show base:compat/acknowledged-breaks.json`); a path that does not exist when the base has none. */
async function baseFile(r: TempRepo): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-base-acks-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'acknowledged-breaks.json');
  const shown = await r.git('show', `main:${ACKS}`).catch(() => undefined);
  if (shown !== undefined) writeFileSync(path, shown);
  return path;
}

type Report = { findings: Array<Record<string, unknown>>; acknowledged: Array<{ finding: Record<string, unknown> }>; staleAcknowledgements: Array<Record<string, unknown>>; acknowledgementsFile?: Record<string, unknown> };

describe('a pull request cannot acknowledge its own break', () => {
  it.each([
    ['the base branch has an acknowledgements file', [unrelated]],
    ['the base branch has none', undefined],
  ] as const)('%s: the gate run as CI runs it fails the PR; the PR\'s own file would have passed it', async (_name, baseAcks) => {
    const { r, cache } = await pullRequest(baseAcks ? [...baseAcks] : undefined);
    const trusted = await baseFile(r);
    expect(existsSync(trusted)).toBe(baseAcks !== undefined);

    const ci = await compat(r.dir, ['--static-only', '--format', 'json', '--cache-dir', cache, '--acknowledgements', trusted]);
    const context = `exit ${ci.code}\n${ci.stdout}\n${ci.stderr.split('\n').slice(-10).join('\n')}`;
    expect(ci.code, context).toBe(1);
    const report = JSON.parse(ci.stdout) as Report;
    expect(report.findings, context).toContainEqual(expect.objectContaining(theBreak));
    expect(report.acknowledged).toEqual([]);
    expect(report.acknowledgementsFile).toEqual({ path: trusted, found: baseAcks !== undefined, notApplied: 1 });
    // The base's own entry was read: it matched nothing here, so it is reported stale.
    expect(report.staleAcknowledgements.map((s) => s.subject)).toEqual(baseAcks ? ['capability legacyEcho'] : []);

    // The same tree judged with its own file (what the gate did before CI passed the base's): the PR's entry silences its break.
    const own = await compat(r.dir, ['--static-only', '--format', 'json', '--cache-dir', cache]);
    expect(own.code, own.stdout).toBe(0);
    expect((JSON.parse(own.stdout) as Report).acknowledged.map((a) => a.finding)).toContainEqual(expect.objectContaining(theBreak));
  });

  it('the text report says which file applied and that the PR\'s entry waits for review', async () => {
    const { r, cache } = await pullRequest([unrelated]);
    const ci = await compat(r.dir, ['--static-only', '--cache-dir', cache, '--acknowledgements', await baseFile(r)]);
    expect(ci.code).toBe(1);
    expect(ci.stdout).toMatch(/^acknowledgements: from .*acknowledged-breaks\.json; 1 entry of this tree's compat\/acknowledged-breaks\.json not in it applies only once reviewed and merged$/m);
    expect(ci.stdout).toContain('✗ CAPABILITY_NO_LONGER_ADVERTISED  old client × new host');
  });

  it('once the entry is on the base branch (reviewed and merged), the same PR passes', async () => {
    const { r, cache } = await pullRequest([unrelated, ownEntry]);
    const ci = await compat(r.dir, ['--static-only', '--format', 'json', '--cache-dir', cache, '--acknowledgements', await baseFile(r)]);
    expect(ci.code, ci.stdout).toBe(0);
    expect((JSON.parse(ci.stdout) as Report).acknowledgementsFile).toMatchObject({ found: true, notApplied: 0 });
  });
});

describe('an expired acknowledgement fails the gate', () => {
  it('on the day after its expiry: exit 1, naming the entry, its owner and the date; on the day itself it still holds', async () => {
    const { r, cache } = await pullRequest([unrelated, { ...ownEntry, expires: '2026-12-01' }]);
    const trusted = await baseFile(r);
    const onTheDay = await compat(r.dir, ['--static-only', '--cache-dir', cache, '--acknowledgements', trusted]);
    expect(onTheDay.code, onTheDay.stdout).toBe(0);

    vi.setSystemTime(new Date('2026-12-02T00:30:00Z'));
    const after = await compat(r.dir, ['--static-only', '--cache-dir', cache, '--acknowledgements', trusted]);
    expect(after.code, after.stdout).toBe(1);
    expect(after.stdout).toContain('✗ expired acknowledgement CAPABILITY_NO_LONGER_ADVERTISED · old client × new host · capability outputPause (owner @pr-author) expired on 2026-12-01: F1 fails again');
    expect(after.stdout).toContain('1 expired acknowledgement(s)');
  });
});
