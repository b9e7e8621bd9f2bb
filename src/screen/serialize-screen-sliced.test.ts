import serializeAddon from '@xterm/addon-serialize';
import { afterEach, describe, expect, it } from 'vitest';
import { ScreenSerialization, serializeScreen, type SnapshotForm } from './serialize-screen.js';
import { type PooledTerminal, screenTerminals } from './terminal-pool.js';

const COLS = 30;
const ROWS = 6;
const SCROLLBACK = 10;

const write = (p: PooledTerminal, data: string) => new Promise<void>((resolve) => p.term.write(data, resolve));

const taken: PooledTerminal[] = [];
afterEach(() => {
  for (const p of taken.splice(0)) screenTerminals.give(p);
});

const link = (uri: string, params = '') => `\x1b]8;${params};${uri}\x1b\\`;
const END_LINK = '\x1b]8;;\x1b\\';
const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\r\n');

/** Screens whose text carries state from row to row: the pen, pending wraps, blanks, the cursor, both buffers. */
const SCREENS: ReadonlyArray<{ readonly name: string; readonly output: string }> = [
  { name: 'an empty screen', output: '' },
  { name: 'a prompt', output: '$ ' },
  { name: 'colours in every cell, over scrollback', output: lines(20, (r) => Array.from({ length: COLS }, (_, c) => `\x1b[3${c % 8};4${(c + r) % 8}mx`).join('')) },
  { name: 'a pen carried over row ends, and reset mid-row', output: `\x1b[1;31mred\r\nstill red\x1b[0m plain\r\n\x1b[44m\x1b[K\x1b[0m\r\nafter` },
  { name: 'colour that runs through blank cells to the row end', output: '\x1b[42ma    b\x1b[K\r\n\x1b[45m   \x1b[0m\r\nc' },
  { name: 'wrapped lines and wide characters across the edge', output: `${'w'.repeat(COLS + 7)}\r\n${'n'.repeat(COLS - 1)}日本語\r\n${'本'.repeat(COLS)}` },
  { name: 'an empty row above a wrapped row (a forced wrap)', output: `\x1b[3;1H${'x'.repeat(COLS + 5)}\x1b[3;1H\x1b[2K\x1b[1;1Htop` },
  { name: 'the bottom row filled to the last column, the wrap pending', output: `${'\r\n'.repeat(ROWS - 1)}${'b'.repeat(COLS)}` },
  { name: 'links, underline styles and colours', output: `${link('http://a.example/', 'id=a')}\x1b[4:3;58:5:9mcurly link${END_LINK}\x1b[0m ${link('http://b.example/')}日本 wraps across the edge of the row${END_LINK}` },
  { name: 'the alternate screen over a coloured main screen with scrollback', output: `${lines(12, (i) => `\x1b[3${i % 8}mline ${i}`)}\x1b[0m\x1b[?1049h\x1b[H\x1b[1;7malt\x1b[3;4Hmore\x1b[?1h\x1b[?2004h` },
  { name: 'a scroll region, origin mode and a hidden cursor', output: 'top\r\n1\r\n2\x1b[2;4r\x1b[?6h\x1b[2;3Hin\x1b[?25l\x1b[?1000h\x1b[?1006h' },
  { name: 'the pen left bold with a background, cursor moved up', output: `${lines(8, (i) => `row ${i}`)}\x1b[3;5H\x1b[1;44m` },
];

/** Steps until done; `over` is asked after each row. Returns the text and the steps taken. */
function sliced(p: PooledTerminal, form: SnapshotForm, over: () => boolean): { text: string; steps: number } {
  const serialization = new ScreenSerialization(p, form);
  for (let steps = 1; ; steps++) {
    const text = serialization.step(over);
    if (text !== undefined) return { text, steps };
  }
}

describe('ScreenSerialization: a screen serialised a row at a time is the text serialised whole', () => {
  describe.each<SnapshotForm>(['wire', 'repaint'])('%s form', (form) => {
    it.each(SCREENS)('$name', async ({ output }) => {
      const p = screenTerminals.take(COLS, ROWS, SCROLLBACK);
      taken.push(p);
      await write(p, output);
      const whole = serializeScreen(p, form);
      const rowByRow = sliced(p, form, () => true);
      expect(rowByRow.text).toBe(whole);
      // Every row a step, each buffer's last row ending its own step, then one for the additions.
      const buffers = p.term.buffer.active.type === 'alternate' ? p.term.buffer.normal.length + p.term.buffer.alternate.length : p.term.buffer.normal.length;
      expect(rowByRow.steps).toBe(buffers + 1);
      expect(sliced(p, form, () => false)).toEqual({ text: whole, steps: 1 });
      // Slices that end at uneven rows, as a clock would end them.
      let asked = 0;
      expect(sliced(p, form, () => ++asked % 3 === 0).text).toBe(whole);
    });
  });

  it("is taken whole, in one step, from an addon that does not export its handlers where 0.14 does", async () => {
    const p = screenTerminals.take(COLS, ROWS, SCROLLBACK);
    taken.push(p);
    await write(p, SCREENS[2]!.output);
    const addon = serializeAddon as { HTMLSerializeHandler?: unknown };
    const exported = addon.HTMLSerializeHandler;
    addon.HTMLSerializeHandler = undefined;
    try {
      expect(sliced(p, 'wire', () => true)).toEqual({ text: serializeScreen(p, 'wire'), steps: 2 });
    } finally {
      addon.HTMLSerializeHandler = exported;
    }
  });

  it('is the text serialised whole at 1000 columns, coloured in every cell', async () => {
    const p = screenTerminals.take(1000, 20, 20);
    taken.push(p);
    await write(p, lines(30, (r) => `${Array.from({ length: 1000 }, (_, c) => `\x1b[3${c % 8};4${(c + r) % 8}mx`).join('')}\x1b[0m`));
    expect(sliced(p, 'wire', () => true).text).toBe(serializeScreen(p, 'wire'));
  });
});
