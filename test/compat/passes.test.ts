import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJourneyPairings } from '../../compat/journey/run.js';
import type { BuildInfo } from '../../compat/build-info.js';

const root = join(import.meta.dirname, '..', '..');

describe('--passes', () => {
  it('walks the script and only the passes named: a pass left out is never planned, so it has no recording and no progress line', async () => {
    const manifest = JSON.parse(execFileSync(process.execPath, [join(root, 'bin', 'termwire.js'), 'manifest'], { encoding: 'utf8' }));
    // This build on both sides: every pairing runs the same code, so each pass is one real walk.
    const build: BuildInfo = { dir: root, version: manifest.version ?? 'this tree', commit: 'working tree', manifest };
    const progress: string[] = [];
    const walked = await runJourneyPairings({ old: build, new: build }, { onProgress: (m) => progress.push(m), passes: new Set(['script', 'restart']) });
    expect(walked.oldOld.steps.filter((s) => s.status === 'stalled'), progress.join('\n')).toEqual([]);
    expect(walked.restart?.newNew.steps.length).toBeGreaterThan(0);
    expect([walked.pty, walked.stream, walked.lifetime]).toEqual([undefined, undefined, undefined]);
    expect(progress.filter((m) => /\((pty|byte stream|detached lifetime)\)/.test(m)), progress.join('\n')).toEqual([]);
    expect(progress.some((m) => m.includes('(host restart)'))).toBe(true);
  }, 120_000);
});
