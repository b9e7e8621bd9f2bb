import { describe, expect, it } from 'vitest';
import { AltScreenFilter } from './attach-alt-screen.js';

describe("AltScreenFilter: the remote's screen switches stay off the local terminal", () => {
  it("turns entering the remote's alternate screen into a clear and reports leaving it", () => {
    const filter = new AltScreenFilter();
    expect(filter.filter('a\x1b[?1049hb')).toEqual({ text: 'a\x1b[2Jb', leftAlternateScreen: false });
    expect(filter.filter('c\x1b[?1049ld')).toEqual({ text: 'cd', leftAlternateScreen: true });
    expect(filter.filter('\x1b[?47h\x1b[?1047l')).toEqual({ text: '\x1b[2J', leftAlternateScreen: true });
  });

  it('keeps the other modes of a combined sequence, and every other private mode as it came', () => {
    const filter = new AltScreenFilter();
    expect(filter.filter('\x1b[?1049;1h\x1b[?25l\x1b[?2004h')).toEqual({ text: '\x1b[?1h\x1b[2J\x1b[?25l\x1b[?2004h', leftAlternateScreen: false });
  });

  it('holds a sequence cut between chunks until it is whole', () => {
    const filter = new AltScreenFilter();
    const parts = ['x\x1b', '[?10', '49', 'l', 'y'].map((chunk) => filter.filter(chunk));
    expect(parts.map((p) => p.text).join('')).toBe('xy');
    expect(parts.some((p) => p.leftAlternateScreen)).toBe(true);
    expect(filter.filter('\x1b[').text).toBe('');
    expect(filter.filter('31mred').text).toBe('\x1b[31mred');
  });

  it('forgets a sequence held half-way when a repaint replaces what it began', () => {
    const filter = new AltScreenFilter();
    expect(filter.filter('x\x1b[?25').text).toBe('x');
    filter.reset();
    expect(filter.filter('ls').text).toBe('ls');
  });
});
