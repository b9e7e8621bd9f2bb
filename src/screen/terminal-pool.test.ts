import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { assertSeededAsync } from '../../test/helpers/seeded-property.js';
import { type PooledTerminal, TerminalPool } from './terminal-pool.js';

const COLS = 12;
const ROWS = 5;
const SCROLLBACK = 20;

const parsed = (pooled: PooledTerminal, data: string): Promise<void> => new Promise((resolve) => pooled.term.write(data, resolve));

/** Everything a screen's owner can read, and the state that decides what later output does. */
function observable({ term, serializer }: PooledTerminal) {
  const lines = (buffer: typeof term.buffer.normal) => Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(false));
  const active = term.buffer.active;
  return {
    serialized: serializer.serialize(),
    normal: lines(term.buffer.normal),
    alternate: lines(term.buffer.alternate),
    active: active.type,
    cursor: [active.cursorX, active.cursorY, active.baseY, active.viewportY],
    modes: { ...term.modes },
    options: { ...term.options },
  };
}

// What a previous owner may leave behind: content and scrollback, attributes, the alternate screen,
// modes, a scroll region, charsets, tab stops, a saved cursor, titles, links, and sequences cut off mid-way.
const LEFTOVERS = [
  'hello\r\n', 'line\r\n'.repeat(30), '\x1b[1;31;44m', '\x1b[38;2;1;2;3m', '\x1b[?1049h', '\x1b[?47h',
  '\x1b[?1h', '\x1b=', '\x1b[?2004h', '\x1b[4h', '\x1b[?6h', '\x1b[?45h', '\x1b[?1004h', '\x1b[?7l',
  '\x1b[?1000h', '\x1b[?1003h', '\x1b[?25l', '\x1b[?12h', '\x1b[20h', '\x1b[5 q', '\x1b[2;4r', '\x1b(0', '\x1b)0\x0e',
  '\x1b[3g', '\x1bH', '\x1b[3;5H\x1b7', '\x1b]0;secret\x07', '\x1b[22t', '\x1b]8;;http://x\x07link\x1b]8;;\x07',
  '界', '\x1b[3;7H', '\x1b[3', '\x1b]0;unterminated', '\x1bP1$r', '\x1b', '\ud83d',
];
// Output whose effect shows that state: text, tabs, a restored cursor, line drawing, scrolling, titles popped.
const PROBES = ['bare\nline', 'abc', 'x\ty', '\x1b8', '\r\n', 'q', '\x1b[H', 'more\r\n'.repeat(8), '\x1b[23t', '\x1b[?1049l', '\x1b[L', '\x1b[10B', 'wrapping past the edge'];

describe('a pooled terminal', () => {
  it('is, once handed out again, indistinguishable from a new one', async () => {
    await assertSeededAsync(
      fc.asyncProperty(fc.array(fc.constantFrom(...LEFTOVERS), { maxLength: 12 }), fc.array(fc.constantFrom(...PROBES), { maxLength: 8 }), async (leftovers, probes) => {
        const pool = new TerminalPool();
        const used = pool.take(COLS, ROWS, SCROLLBACK);
        await parsed(used, leftovers.join(''));
        pool.give(used);
        await pool.whenIdle();
        const recycled = pool.take(COLS, ROWS, SCROLLBACK);
        expect(recycled).toBe(used);
        const fresh = new TerminalPool().take(COLS, ROWS, SCROLLBACK);
        expect(observable(recycled)).toEqual(observable(fresh)); // what an owner reads before writing
        await parsed(recycled, probes.join(''));
        await parsed(fresh, probes.join(''));
        expect(observable(recycled)).toEqual(observable(fresh));
        recycled.term.dispose();
        fresh.term.dispose();
      }),
      702,
      150,
    );
  });

  it('is not handed out while its reset is still queued', async () => {
    const pool = new TerminalPool();
    const used = pool.take(COLS, ROWS, SCROLLBACK);
    await parsed(used, 'previous owner');
    pool.give(used);
    const next = pool.take(COLS, ROWS, SCROLLBACK);
    expect(next).not.toBe(used);
    expect(next.term.buffer.active.getLine(0)!.translateToString(true)).toBe('');
    expect(pool.built).toBe(2);
  });

  it('is handed out only at its own size and scrollback', async () => {
    const pool = new TerminalPool();
    const used = pool.take(COLS, ROWS, SCROLLBACK);
    pool.give(used);
    await pool.whenIdle();
    expect(pool.take(COLS + 1, ROWS, SCROLLBACK)).not.toBe(used);
    expect(pool.take(COLS, ROWS + 1, SCROLLBACK)).not.toBe(used);
    expect(pool.take(COLS, ROWS, SCROLLBACK + 1)).not.toBe(used);
    expect(pool.take(COLS, ROWS, SCROLLBACK)).toBe(used);
  });

  it('given back after a resize, is kept at its new size', async () => {
    const pool = new TerminalPool();
    const used = pool.take(COLS, ROWS, SCROLLBACK);
    used.term.resize(COLS + 3, ROWS + 1);
    pool.give(used);
    await pool.whenIdle();
    expect(pool.take(COLS + 3, ROWS + 1, SCROLLBACK)).toBe(used);
  });
});

describe('a terminal pool', () => {
  it('keeps at most maxIdle terminals, disposing the rest', async () => {
    const pool = new TerminalPool({ maxIdle: 3 });
    const taken = Array.from({ length: 5 }, () => pool.take(COLS, ROWS, SCROLLBACK));
    for (const t of taken) pool.give(t);
    await pool.whenIdle();
    expect(pool.idleCount).toBe(3);
  });

  it('keeps no terminal larger than maxCells', async () => {
    const pool = new TerminalPool({ maxCells: COLS * ROWS - 1 });
    pool.give(pool.take(COLS, ROWS, SCROLLBACK));
    await pool.whenIdle();
    expect(pool.idleCount).toBe(0);
  });
});

describe('output xterm rejects', () => {
  it('is not logged: a program printing junk must not fill the host log (xterm dumps its parser state per rejected sequence)', async () => {
    const logged: unknown[] = [];
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args) => void logged.push(args)));
    try {
      const { term } = new TerminalPool().take(COLS, ROWS, SCROLLBACK);
      // ESC followed by a zero-width joiner: seen in CI, where each one printed a dump of some 30 lines.
      await new Promise<void>((resolve) => term.write('\x1b\u200d\x1b[?\u200dh junk', resolve));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(logged).toEqual([]);
  });
});
