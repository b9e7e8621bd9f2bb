import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from './cli.js';
import type { MutationRun } from './results-file.js';
import type { MutantResult } from './score.js';
import { mutantsOfShard } from './shard.js';
import { fakeMutants } from './test-mutants.js';

const results: MutantResult[] = fakeMutants([3, 1, 4, 2, 1, 1]).map((mutant, i) => ({ mutant, status: i < 9 ? 'killed' : i < 11 ? 'survived' : 'equivalent', ...(i === 11 ? { detail: 'reviewed' } : {}) }));
const whole: MutationRun = { format: 'termwire-mutation/1', tree: 't', against: 'v0.2.0', seed: 40, sampleSize: results.length, mutantsInSource: 5212, results };

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function shardFiles(count: number): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mutation-shards-'));
  dirs.push(dir);
  return Array.from({ length: count }, (_, i) => {
    const file = join(dir, `shard-${i + 1}.json`);
    writeFileSync(file, JSON.stringify({ ...whole, shard: { index: i + 1, count }, results: mutantsOfShard(results, { index: i + 1, count }) }));
    return file;
  });
}

function captured(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  return { out: () => out, err: () => err };
}

afterEach(() => void vi.restoreAllMocks());

describe('npm run mutation -- merge', () => {
  it('prints the whole sample\'s score as its last line, and exits 1 only below --threshold', async () => {
    const files = shardFiles(3);
    const io = captured();
    expect(await main(['merge', ...files.reverse()])).toBe(0);
    expect(io.out().trimEnd().split('\n').at(-1)).toBe('mutation score: 9 of 11 killed (81.8%), 1 equivalent, 2 survived');
    expect(await main(['merge', '--threshold', '90', ...files])).toBe(1);
    expect(await main(['merge', '--threshold', '81.8', ...files])).toBe(0);
  });

  it('exits 2 for a missing shard, a file that is not a result, and an unknown option', async () => {
    const io = captured();
    const files = shardFiles(3);
    expect(await main(['merge', files[0]!, files[2]!])).toBe(2);
    expect(io.err()).toContain('missing 2/3');
    expect(await main(['merge', join(tmpdir(), 'no-such-result.json')])).toBe(2);
    expect(await main(['--sample', '4', '--bogus'])).toBe(2);
    expect(await main(['--shard', '1/2', '--sample', '4'])).toBe(2);
    expect(io.err()).toContain('give --output');
  });
});
