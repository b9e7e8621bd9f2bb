import { describe, expect, it } from 'vitest';
import { EscapeStringCap } from './escape-string-cap.js';
import { screenTerminals } from './terminal-pool.js';

const enc = new TextEncoder();

/** Feeds `pieces` through one cap and joins what comes out, as text. */
function through(cap: EscapeStringCap, pieces: ReadonlyArray<string | Uint8Array>): string {
  const dec = new TextDecoder();
  return pieces.map((p) => (typeof p === 'string' ? cap.filter(p) : dec.decode(cap.filter(p), { stream: true }))).join('') + dec.decode();
}

/** A seeded generator (mulberry32): the seed is in every failure message. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('EscapeStringCap: OSC and DCS strings cut before the screen model collects them', () => {
  it('passes output without an overlong string through as the same object', () => {
    const cap = new EscapeStringCap(8);
    const bytes = enc.encode('plain \x1b]0;short\x07 \x1b[1mbold\x1b[0m');
    expect(cap.filter(bytes)).toBe(bytes);
    expect(cap.filter('\x1bP$qm\x1b\\ text')).toBe('\x1bP$qm\x1b\\ text');
  });

  it('cuts an OSC title to the limit and keeps its BEL and what follows, as bytes and as text', () => {
    const title = `\x1b]0;${'a'.repeat(100)}\x07after`;
    expect(through(new EscapeStringCap(10), [enc.encode(title)])).toBe(`\x1b]0;${'a'.repeat(8)}\x07after`);
    expect(through(new EscapeStringCap(10), [title])).toBe(`\x1b]0;${'a'.repeat(8)}\x07after`);
  });

  it('ends a string on ESC \\, CAN and SUB, and on the C1 ST even when its two bytes are split across writes', () => {
    expect(through(new EscapeStringCap(4), [`\x1b]2;${'x'.repeat(9)}\x1b\\ok`])).toBe('\x1b]2;xx\x1b\\ok');
    expect(through(new EscapeStringCap(4), [`\x1b]2;${'x'.repeat(9)}\x18ok`])).toBe('\x1b]2;xx\x18ok');
    const c1 = enc.encode(`\u009d0;${'y'.repeat(20)}\u009cok`);
    const split = c1.indexOf(0x9c); // after the C2 of ST
    expect(through(new EscapeStringCap(5), [c1.subarray(0, split), c1.subarray(split)])).toBe('\u009d0;yyy\u009cok');
  });

  it('does not end a DCS on BEL, which xterm keeps inside it: a program cannot restart the string past the cut', () => {
    expect(through(new EscapeStringCap(4), [`\x1bP${'z'.repeat(6)}\x07${'z'.repeat(6)}\x1b\\ok`])).toBe('\x1bPzzzzz\x1b\\ok'); // the first z is the DCS's final character, not its data
  });

  it('gives the same output however the input is split into writes (seeded)', () => {
    const seed = Number(process.env.CAP_SEED ?? 7);
    const next = random(seed);
    const alphabet = ['a', 'é', '\x1b', ']', 'P', '\\', '\x07', '\x18', '\u009c', '\u009d', '\u0090', '0;', 'x'];
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: 200 }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const bytes = enc.encode(text);
      const whole = through(new EscapeStringCap(6), [bytes]);
      const cuts = Array.from({ length: 1 + Math.floor(next() * 8) }, () => Math.floor(next() * bytes.length)).sort((x, y) => x - y);
      const pieces = [0, ...cuts].map((from, i) => bytes.subarray(from, [...cuts, bytes.length][i]));
      expect(through(new EscapeStringCap(6), pieces), `seed ${seed} round ${round}: ${JSON.stringify(text)}`).toBe(whole);
      // As text a C1 control or an é is one unit, not two bytes: the cut falls elsewhere, but splitting still changes nothing.
      const textPieces = [0, ...cuts].map((from, i) => text.slice(Math.min(from, text.length), Math.min([...cuts, bytes.length][i]!, text.length)));
      expect(through(new EscapeStringCap(6), textPieces), `seed ${seed} round ${round}, as text`).toBe(through(new EscapeStringCap(6), [text]));
    }
  });

  it('begins a string where xterm does: after C0 controls or DEL that leave it in the escape state, and after ESC then a C1 OSC in text', () => {
    expect(through(new EscapeStringCap(4), [`\x1b\x00]0;${'x'.repeat(9)}\x07ok`])).toBe('\x1b\x00]0;xx\x07ok');
    expect(through(new EscapeStringCap(4), [enc.encode(`\x1b\x7f]0;${'x'.repeat(9)}\x07ok`)])).toBe('\x1b\x7f]0;xx\x07ok');
    expect(through(new EscapeStringCap(4), [`\x1b\u009d0;${'x'.repeat(9)}\x07ok`])).toBe('\x1b\u009d0;xx\x07ok');
  });

  it('ends a string on any C1 control, as xterm does, so output after it is never dropped', () => {
    expect(through(new EscapeStringCap(4), [enc.encode(`\x1b]0;${'x'.repeat(9)}\u0085visible`)])).toBe('\x1b]0;xx\u0085visible');
    expect(through(new EscapeStringCap(4), [`\x1bP${'x'.repeat(9)}\u009b1mvisible`])).toBe('\x1bPxxxxx\u009b1mvisible');
  });

  it('leaves what xterm shows unchanged: a real screen fed the cut output equals one fed the whole (seeded)', async () => {
    const seed = Number(process.env.CAP_SEED ?? 11);
    const next = random(seed);
    const alphabet = ['a', 'b ', 'é', '日', '\r\n', '\x1b', ']', 'P', '0;', '\\', '\x07', '\x18', '\x1a', '\x00', '\x7f', '\u009c', '\u009d', '\u0090', '\u0085', '\u009b', '[1m', 'x'.repeat(20)];
    const screenOf = async (text: string) => {
      const pooled = screenTerminals.take(40, 6, 20);
      pooled.term.options.logLevel = 'off'; // random input makes xterm log every sequence it rejects
      await new Promise<void>((resolve) => pooled.term.write(text, resolve));
      const buffer = pooled.term.buffer.active;
      const lines = Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true)).join('\n');
      pooled.term.dispose(); // a fresh terminal each time: nothing a reset leaves behind can differ
      return `${lines}\n@${buffer.cursorX},${buffer.cursorY}`;
    };
    for (let round = 0; round < 150; round++) {
      const text = Array.from({ length: 120 }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
      const cut = through(new EscapeStringCap(8), [enc.encode(text)]);
      expect(await screenOf(cut), `seed ${seed} round ${round}: ${JSON.stringify(text)}`).toBe(await screenOf(text));
    }
  });

  it('keeps a real screen small and right when a program prints a 9 MB title: the title is cut, the text after it shows', async () => {
    const pooled = screenTerminals.take(80, 24, 0);
    const titles: string[] = [];
    const listening = pooled.term.onTitleChange((t) => titles.push(t));
    const cap = new EscapeStringCap();
    const chunk = new Uint8Array(65536).fill(0x61);
    pooled.term.write(cap.filter(enc.encode('\x1b]0;')));
    for (let i = 0; i < 140; i++) pooled.term.write(cap.filter(chunk));
    await new Promise<void>((resolve) => pooled.term.write(cap.filter(enc.encode('\x07shown')), resolve));
    listening.dispose();
    expect(titles.map((t) => t.length)).toEqual([64 * 1024 - 2]); // the "0;" counts toward the string
    expect(pooled.term.buffer.active.getLine(0)!.translateToString(true)).toBe('shown');
    screenTerminals.give(pooled);
  });
});
