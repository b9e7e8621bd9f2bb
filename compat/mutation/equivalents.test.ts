import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { enumerateMutants } from './enumerate.js';
import { EQUIVALENTS_FILE, EquivalentsFileError, loadEquivalents, matchEquivalents } from './equivalents.js';
import { fakeMutant } from './test-mutants.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function fileWith(json: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'equivalents-'));
  dirs.push(dir);
  const path = join(dir, 'equivalent-mutants.json');
  writeFileSync(path, typeof json === 'string' ? json : JSON.stringify(json));
  return path;
}

const entry = { file: 'src/codec/f1.ts', line: 2, mutator: 'EqualityOperator', replacement: 'a1 !== b', why: 'the branch is never taken on any wire' };

describe('loadEquivalents', () => {
  it('loads a reviewed entry', () => {
    expect(loadEquivalents(fileWith({ equivalents: [entry] }))).toEqual([entry]);
  });

  it('refuses an entry without a reason, with an unknown key, or a file that is not JSON', () => {
    const { why: _why, ...noWhy } = entry;
    expect(() => loadEquivalents(fileWith({ equivalents: [noWhy] }))).toThrow(/why/);
    expect(() => loadEquivalents(fileWith({ equivalents: [{ ...entry, why: 'ok' }] }))).toThrow(EquivalentsFileError);
    expect(() => loadEquivalents(fileWith({ equivalents: [{ ...entry, lines: 3 }] }))).toThrow(EquivalentsFileError);
    expect(() => loadEquivalents(fileWith('{ "equivalents": ['))).toThrow(/not JSON/);
    expect(() => loadEquivalents('/nonexistent/equivalent-mutants.json')).toThrow(/cannot be read/);
  });

  it("the repository's reviewed file loads and names mutants of today's source, each exactly once", async () => {
    const entries = loadEquivalents(join(process.cwd(), EQUIVALENTS_FILE));
    const { why, stale } = matchEquivalents(entries, await enumerateMutants(process.cwd()));
    expect(stale).toEqual([]);
    expect(why.size).toBe(entries.length);
  });
});

describe('matchEquivalents', () => {
  const m = fakeMutant('src/codec', 1);

  it('marks the mutant an entry names, and reports an entry that names none as stale', () => {
    const { why, stale } = matchEquivalents([entry, { ...entry, line: 99 }], [m, fakeMutant('src/codec', 2)]);
    expect([...why]).toEqual([[m.id, entry.why]]);
    expect(stale).toEqual([{ ...entry, line: 99 }]);
  });

  it('refuses an entry that names two mutants, unless its column tells them apart', () => {
    const twin = fakeMutant('src/codec', 1, { column: 9, original: 'other' });
    expect(() => matchEquivalents([entry], [m, twin])).toThrow(/matches 2 mutants/);
    expect([...matchEquivalents([{ ...entry, column: 9 }], [m, twin]).why.keys()]).toEqual([twin.id]);
  });
});
