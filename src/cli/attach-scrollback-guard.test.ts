import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { ScrollbackGuard } from './attach-scrollback-guard.js';

const { Terminal } = xtermHeadless;

/** `text` through one guard, cut into chunks at `cuts`. */
function guarded(text: string, cuts: readonly number[]): string {
  const guard = new ScrollbackGuard();
  const bounds = [0, ...cuts, text.length];
  return bounds
    .slice(1)
    .map((end, i) => guard.filter(text.slice(bounds[i], end)))
    .join('');
}

// What `clear` sends (ncurses: home, ED 2, ED 3), then more, with sequences the guard must leave alone around it.
const OUTPUT = 'one\r\n\x1b[31mtwo\x1b[0m\x1b[H\x1b[2J\x1b[3J$ \x1b[?3J\x1b[03Jx\x1b[J\x1b[1J\x1b[?25l\x1bcafter';

describe('ScrollbackGuard: the remote never erases the local scrollback', () => {
  it('drops ED 3 in every spelling, keeps the other erases, and turns RIS into a reset of modes and screen', () => {
    const text = guarded(OUTPUT, []);
    expect(text).not.toMatch(/\x1b\[\??0*3J|\x1bc/);
    expect(text).toContain('\x1b[H\x1b[2J$ x\x1b[J\x1b[1J\x1b[?25l');
    expect(text).toMatch(/\x1b\[\?25h.*\x1b\[H\x1b\[2Jafter$/);
  });

  it('gives the same text whatever the chunk boundaries, cut at every offset and at every pair of offsets', () => {
    const whole = guarded(OUTPUT, []);
    for (let a = 0; a <= OUTPUT.length; a++) {
      expect(guarded(OUTPUT, [a]), `cut at ${a}`).toBe(whole);
      for (let b = a; b <= OUTPUT.length; b += 3) expect(guarded(OUTPUT, [a, b]), `cut at ${a} and ${b}`).toBe(whole);
    }
  });

  it("keeps a terminal's scrollback through a remote `clear` cut in the middle of ED 3", async () => {
    const term = new Terminal({ cols: 20, rows: 5, scrollback: 100, allowProposedApi: true });
    const guard = new ScrollbackGuard();
    const write = (text: string) => new Promise<void>((resolve) => term.write(guard.filter(text), resolve));
    await write(Array.from({ length: 30 }, (_, i) => `mine-${i}`).join('\r\n'));
    expect(term.buffer.active.baseY).toBe(25);
    await write('\x1b[H\x1b[2J\x1b[');
    await write('3J$ ');
    expect(term.buffer.active.baseY).toBeGreaterThanOrEqual(25);
    expect(term.buffer.active.getLine(0)!.translateToString(true)).toBe('mine-0');
  });

  it('holds nothing when the chunk ends in finished text, and forgets what it held at a reset', () => {
    const guard = new ScrollbackGuard();
    expect(guard.filter('ls\x1b[0m')).toBe('ls\x1b[0m');
    expect(guard.filter('x\x1b[3')).toBe('x');
    guard.reset();
    expect(guard.filter('Jy')).toBe('Jy');
  });
});
