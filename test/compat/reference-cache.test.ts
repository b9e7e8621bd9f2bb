import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedReference } from '../../compat/journey/reference-cache.js';
import type { PairingRecording, StepResult } from '../../compat/recording.js';

const recording = (status: StepResult['status'], marker: string) => ({ steps: [{ name: 'subscribe', status, durationMs: 1 }], peerErrors: [marker] }) as unknown as PairingRecording;

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

  it('records every time without a cache', async () => {
    let recorded = 0;
    await cachedReference(undefined, {}, async () => recording('ok', `${++recorded}`));
    await cachedReference(undefined, {}, async () => recording('ok', `${++recorded}`));
    expect(recorded).toBe(2);
  });
});
