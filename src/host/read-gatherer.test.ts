import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReadGatherer, type ReadGathererOptions } from './read-gatherer.js';

/** A gatherer whose handed-on pieces are collected in order. */
function gatherer(options: ReadGathererOptions = { gatherMs: 4 }): { pieces: string[]; reads: ReadGatherer } {
  const pieces: string[] = [];
  return { pieces, reads: new ReadGatherer((data) => pieces.push(data), options) };
}

describe('ReadGatherer', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('hands on a read after a quiet spell at once (a keystroke echo waits for nothing)', () => {
    const { pieces, reads } = gatherer();
    reads.add('x');
    expect(pieces).toEqual(['x']);
    vi.advanceTimersByTime(4); // the window ends quiet
    reads.add('y');
    expect(pieces).toEqual(['x', 'y']);
  });

  it('joins the reads that follow within the window and hands them on when it ends', () => {
    const { pieces, reads } = gatherer();
    reads.add('a');
    reads.add('b'.repeat(4095));
    reads.add('c');
    expect(pieces).toEqual(['a']);
    vi.advanceTimersByTime(3);
    expect(pieces).toEqual(['a']);
    vi.advanceTimersByTime(1);
    expect(pieces).toEqual(['a', 'b'.repeat(4095) + 'c']);
  });

  it('keeps gathering while output keeps coming, one piece per window', () => {
    const { pieces, reads } = gatherer();
    reads.add('0');
    for (let window = 1; window <= 3; window++) {
      reads.add(`${window}a`);
      reads.add(`${window}b`);
      vi.advanceTimersByTime(4);
    }
    expect(pieces).toEqual(['0', '1a1b', '2a2b', '3a3b']);
  });

  it('hands a piece on as soon as it reaches maxChars', () => {
    const { pieces, reads } = gatherer({ gatherMs: 4, maxChars: 10 });
    reads.add('first');
    reads.add('123456');
    reads.add('7890');
    expect(pieces).toEqual(['first', '1234567890']);
  });

  it('flush hands on at once and ends the window (an exit must not overtake output)', () => {
    const { pieces, reads } = gatherer();
    reads.add('a');
    reads.add('last words');
    reads.flush();
    expect(pieces).toEqual(['a', 'last words']);
    reads.add('z'); // the window ended: handed on at once
    expect(pieces).toEqual(['a', 'last words', 'z']);
    vi.advanceTimersByTime(100);
    expect(pieces).toEqual(['a', 'last words', 'z']);
  });
});
