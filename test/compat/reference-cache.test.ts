import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedReference, REFERENCE_CACHE_MAX_ENTRIES } from '../../compat/journey/reference-cache.js';
import type { PairingRecording, StepResult } from '../../compat/recording.js';

const recording = (status: StepResult['status'], marker: string) => ({ steps: [{ name: 'subscribe', status, durationMs: 1 }], frames: [], peerErrors: [marker] }) as unknown as PairingRecording;

describe('the old × old reference cache', () => {
  const dirs: string[] = [];
  const cacheFor = (baselineCommit: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'termwire-references-'));
    dirs.push(dir);
    return { dir, baselineCommit };
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('records once per baseline and journey shape, and reuses that recording after', async () => {
    const cache = cacheFor('a'.repeat(40));
    let recorded = 0;
    const record = async () => recording('ok', `run ${++recorded}`);
    expect((await cachedReference(cache, { steps: ['subscribe'] }, record)).peerErrors).toEqual(['run 1']);
    expect((await cachedReference(cache, { steps: ['subscribe'] }, record)).peerErrors).toEqual(['run 1']);
    expect(recorded).toBe(1);
    await cachedReference(cache, { steps: ['subscribe', 'input'] }, record);
    await cachedReference({ ...cache, baselineCommit: 'b'.repeat(40) }, { steps: ['subscribe'] }, record);
    expect(recorded).toBe(3);
  });

  it('never keeps a reference that stalled: the next run records it again', async () => {
    const cache = cacheFor('c'.repeat(40));
    let recorded = 0;
    const record = async () => recording('stalled', `run ${++recorded}`);
    await cachedReference(cache, {}, record);
    expect((await cachedReference(cache, {}, record)).peerErrors).toEqual(['run 2']);
  });

  it('never keeps a reference in which a client gave up a link the proxy kept up: the next run records it again', async () => {
    const cache = cacheFor('d'.repeat(40));
    let recorded = 0;
    const record = async () => ({ ...recording('ok', `run ${++recorded}`), unplannedEnds: [{ step: 'burst', connection: 1, client: 'primary' as const }] });
    await cachedReference(cache, {}, record);
    expect((await cachedReference(cache, {}, record)).peerErrors).toEqual(['run 2']);
  });

  it('never keeps a reference in which the host gave up on a client too slow to read: the next run records it again', async () => {
    const cache = cacheFor('e'.repeat(40));
    let recorded = 0;
    const gaveUp = { direction: 'hostToClient', opcodeName: 'Error', payload: { code: 'LINK_DRAIN_TIMEOUT' }, step: 'burst' };
    const record = async () => ({ ...recording('ok', `run ${++recorded}`), frames: [gaveUp] }) as unknown as PairingRecording;
    await cachedReference(cache, {}, record);
    expect((await cachedReference(cache, {}, record)).peerErrors).toEqual(['run 2']);
  });

  it('records every time without a cache', async () => {
    let recorded = 0;
    await cachedReference(undefined, {}, async () => recording('ok', `${++recorded}`));
    await cachedReference(undefined, {}, async () => recording('ok', `${++recorded}`));
    expect(recorded).toBe(2);
  });
});

describe('the reference cache stays bounded', () => {
  it(`keeps the newest ${REFERENCE_CACHE_MAX_ENTRIES} references and deletes the oldest`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'termwire-references-'));
    try {
      const cache = { dir, baselineCommit: 'd'.repeat(40) };
      for (let i = 0; i <= REFERENCE_CACHE_MAX_ENTRIES; i++) {
        await cachedReference(cache, { seed: i }, async () => recording('ok', `seed ${i}`));
        // Distinct mtimes, oldest first, whatever the file system's timestamp resolution.
        utimesSync(join(dir, 'references', readdirSync(join(dir, 'references')).find((f) => readFileSync(join(dir, 'references', f), 'utf8').includes(`"seed ${i}"`))!), i, i);
      }
      expect(readdirSync(join(dir, 'references'))).toHaveLength(REFERENCE_CACHE_MAX_ENTRIES);
      let recordedAgain = false;
      await cachedReference(cache, { seed: 0 }, async () => ((recordedAgain = true), recording('ok', 'seed 0 again')));
      expect(recordedAgain, 'the oldest reference was deleted').toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
