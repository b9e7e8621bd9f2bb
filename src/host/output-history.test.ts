import { describe, expect, it } from 'vitest';
import { OutputHistory } from './output-history.js';

const utf8 = new TextEncoder();
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

/** Appends `pieces` as a terminal does: each ends at the running high-water mark. */
function fed(history: OutputHistory, pieces: readonly string[], limit: number): number {
  let seq = 0;
  for (const p of pieces) {
    const bytes = utf8.encode(p);
    seq += bytes.length;
    history.append(bytes, seq, limit);
  }
  return seq;
}

describe('OutputHistory', () => {
  it('gives back every byte after a frame boundary, across blocks', () => {
    const history = new OutputHistory(8);
    const end = fed(history, ['line 1\r\n', 'line 2\r\n', 'line 3 é\r\n'], 1024);
    expect(history.heldBytes).toBe(end);
    expect(text(history.bytesAfter(8))).toBe('line 2\r\nline 3 é\r\n');
    expect(text(history.bytesAfter(end))).toBe('');
    expect(text(history.bytesAfter(0))).toBe('line 1\r\nline 2\r\nline 3 é\r\n');
  });

  it('keeps no more than its limit, byte-exact, and frees the blocks before it', () => {
    const history = new OutputHistory(16);
    const pieces = Array.from({ length: 100 }, (_, i) => `line ${i}\r\n`);
    const end = fed(history, pieces, 40);
    expect(history.heldBytes).toBe(40);
    expect(history.startSeq).toBe(end - 40);
    // The limit plus at most two blocks: one partly before the start, one partly filled.
    expect(history.allocatedBytes).toBeLessThanOrEqual(40 + 2 * 16);
    expect(history.bytesAfter(end - 41)).toBeUndefined();
    expect(text(history.bytesAfter(end - 18))).toBe(pieces.slice(-2).join('')); // 'line 98\r\n' and 'line 99\r\n', 9 bytes each
  });

  it('refuses a point that is not held, or that cuts a character in two', () => {
    const history = new OutputHistory(4);
    const end = fed(history, ['ab', 'é'], 100);
    expect(history.bytesAfter(end + 1)).toBeUndefined();
    expect(history.bytesAfter(end - 1)).toBeUndefined(); // inside é
    expect(text(history.bytesAfter(2))).toBe('é');
  });

  it('trims to a smaller share when asked, and to nothing at 0', () => {
    const history = new OutputHistory(8);
    const end = fed(history, ['0123456789', 'abcdefghij'], 1000);
    history.trim(5);
    expect(text(history.bytesAfter(end - 5))).toBe('fghij');
    history.trim(0);
    expect(history.heldBytes).toBe(0);
    expect(history.allocatedBytes).toBe(0);
    expect(text(history.bytesAfter(end))).toBe('');
  });

  it('starts over at a piece that does not continue the last one', () => {
    const history = new OutputHistory(8);
    history.append(utf8.encode('abc'), 3, 100);
    history.append(utf8.encode('xyz'), 10, 100);
    expect(history.startSeq).toBe(7);
    expect(history.bytesAfter(3)).toBeUndefined();
    expect(text(history.bytesAfter(7))).toBe('xyz');
  });
});
