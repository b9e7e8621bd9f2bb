import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeptVerdicts } from '../../compat/codec-diff/kept-verdicts.js';
import type { FrameVerdict } from '../../compat/peer/codec-peer.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const cacheDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-kept-'));
  dirs.push(dir);
  return dir;
};

const frame = (text: string) => new Uint8Array(Buffer.from(text));
const accepted: FrameVerdict = { ok: true, opcode: 13, opcodeName: 'Ack', streamId: 1, seq: 0, payload: { bytes: 10 } };
const refused: FrameVerdict = { ok: false, code: 'BAD_JSON', message: 'payload is not JSON', opcode: 13, streamId: 1, seq: 0 };

describe("the old build's verdicts kept between runs", () => {
  it('gives the next run of the same build the verdicts this run used, and nothing to another build', () => {
    const dir = cacheDir();
    const [a, b] = [KeptVerdicts.keyOf(frame('a')), KeptVerdicts.keyOf(frame('b'))];
    const first = KeptVerdicts.open(dir, 'abc123 abc123-f2');
    expect(first.get(a)).toBeUndefined();
    first.set(a, accepted);
    first.set(b, refused);
    first.save();

    const second = KeptVerdicts.open(dir, 'abc123 abc123-f2');
    expect(second.get(a)).toEqual(accepted);
    expect(second.get(b)).toEqual(refused);
    expect(second.get(KeptVerdicts.keyOf(frame('c')))).toBeUndefined();
    expect(second.hits).toBe(2);
    expect(KeptVerdicts.open(dir, 'def456 def456-f2').get(a), 'another baseline').toBeUndefined();
  });

  it('keeps only what the last run used, and writes again only where more than a quarter was read now', () => {
    const dir = cacheDir();
    const [a, b] = [KeptVerdicts.keyOf(frame('a')), KeptVerdicts.keyOf(frame('b'))];
    const first = KeptVerdicts.open(dir, 'abc');
    first.set(a, accepted);
    first.set(b, refused);
    first.save();
    const file = join(dir, 'verdicts', readdirSync(join(dir, 'verdicts'))[0]!);
    const written = statSync(file).mtimeMs;

    const onlyA = KeptVerdicts.open(dir, 'abc');
    onlyA.get(a);
    onlyA.save();
    expect(statSync(file).mtimeMs, 'every verdict was kept: no write').toBe(written);
    const fewNew = KeptVerdicts.open(dir, 'abc');
    fewNew.get(a);
    fewNew.set(KeptVerdicts.keyOf(frame('new')), refused);
    fewNew.get(b);
    fewNew.set(KeptVerdicts.keyOf(frame('newer')), refused);
    fewNew.save();
    expect(statSync(file).mtimeMs, 'half read now: written').not.toBe(written);
    const rewritten = statSync(file).mtimeMs;
    const manyKept = KeptVerdicts.open(dir, 'abc');
    [a, b, KeptVerdicts.keyOf(frame('new'))].forEach((k) => manyKept.get(k));
    manyKept.set(KeptVerdicts.keyOf(frame('newest')), refused);
    manyKept.save();
    expect(statSync(file).mtimeMs, 'one read now of four used: a quarter is not written').toBe(rewritten);

    const withC = KeptVerdicts.open(dir, 'abc');
    withC.get(a);
    withC.set(KeptVerdicts.keyOf(frame('c')), refused);
    withC.save();
    const third = KeptVerdicts.open(dir, 'abc');
    expect(third.get(a)).toEqual(accepted);
    expect(third.get(KeptVerdicts.keyOf(frame('c')))).toEqual(refused);
    expect(third.get(b), 'not used by the last run that wrote').toBeUndefined();
  });

  it('reads a file it cannot make sense of as no verdicts', () => {
    const dir = cacheDir();
    const kept = KeptVerdicts.open(dir, 'abc');
    kept.set(KeptVerdicts.keyOf(frame('a')), accepted);
    kept.save();
    const file = join(dir, 'verdicts', readdirSync(join(dir, 'verdicts'))[0]!);
    writeFileSync(file, 'not msgpack at all');
    expect(KeptVerdicts.open(dir, 'abc').get(KeptVerdicts.keyOf(frame('a')))).toBeUndefined();
  });
});
