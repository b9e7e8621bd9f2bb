import { afterEach, describe, expect, it } from 'vitest';
import { screenState } from './screen-state.js';
import { MAX_LINK_TEXT_PER_SNAPSHOT } from './cell-writer.js';
import { serializeScreen } from './serialize-screen.js';
import { type PooledTerminal, screenTerminals } from './terminal-pool.js';

const COLS = 30;
const ROWS = 6;
const SCROLLBACK = 10;

const write = (p: PooledTerminal, data: string) => new Promise<void>((resolve) => p.term.write(data, resolve));

const taken: PooledTerminal[] = [];
const take = () => {
  const p = screenTerminals.take(COLS, ROWS, SCROLLBACK);
  taken.push(p);
  return p;
};
afterEach(() => {
  for (const p of taken.splice(0)) screenTerminals.give(p);
});

const link = (uri: string, params = '') => `\x1b]8;${params};${uri}\x1b\\`;
const END_LINK = '\x1b]8;;\x1b\\';
/** Output that scrolls whatever region is set, then prints with the pen the program left. */
const SCROLLS = 'X\n\n\n\n\n\n\nY';

interface Program {
  readonly name: string;
  readonly output: string;
  /** Written to the original and to the copy after the repaint; the screens must stay equal after each. */
  readonly then: readonly string[];
}

const PROGRAMS: readonly Program[] = [
  {
    name: 'ordinary content: colours, bold, single underline, a wrapped line, wide characters',
    output: '$ ls\r\n\x1b[1;34mdir\x1b[0m \x1b[4mnote\x1b[24m \x1b[38;5;100mp256\x1b[33mp16\x1b[38;2;1;2;3mrgb\x1b[0m\r\n' + 'w'.repeat(40) + ' 日本\r\n$ ',
    then: [SCROLLS],
  },
  {
    name: 'curly, dotted, dashed and double underlines',
    output: '\x1b[4:3mcurly\x1b[4:4mdotted\x1b[4:5mdashed\x1b[4:2mdouble\x1b[21mtwo\x1b[4:1msingle\x1b[0m plain',
    then: ['more', SCROLLS],
  },
  {
    name: 'underline colours, 256 and truecolour, with bold, italics and colours',
    output: '\x1b[4;58:5:196mred\x1b[58:2::10:200:30mgreen\x1b[58;5;33;1;3;38;5;100;48;2;9;8;7mmixed\x1b[59mdefault\x1b[4:3mcurly59\x1b[0m\r\n\x1b[4:3;58;2;1;2;3;7;9;53msix\x1b[0m',
    then: ['tail', SCROLLS],
  },
  {
    name: 'links with and without id=, one spanning wide characters and across rows',
    output: `${link('http://a.example/')}no id${END_LINK} ${link('http://b.example/x', 'id=x7')}日本語 wraps across the edge of the row${END_LINK} after\r\n${link('http://c.example/')}c${END_LINK}${link('http://c.example/')}c${END_LINK}`,
    then: ['more', SCROLLS],
  },
  {
    name: 'a link that is curly underlined and coloured',
    output: `\x1b[4:3;58:5:9;31m${link('http://d.example/', 'id=d')}curly link\x1b[0m${END_LINK}`,
    then: ['x'],
  },
  {
    name: 'a pen left with a curly coloured underline and an open link',
    output: `text \x1b[4:3;58:5:99;1m${link('http://pen.example/', 'id=p')}`,
    then: ['more', `${END_LINK}plain`],
  },
  {
    name: 'a pen left with only an underline colour (an SGR 58 before its SGR 4)',
    output: 'text\x1b[58:2::5:6:7m',
    then: ['\x1b[4mlater'],
  },
  {
    name: 'these on the alternate screen',
    output: `$ app\x1b[?1049h\x1b[H\x1b[4:3mcurly\x1b[0m ${link('http://alt.example/')}link${END_LINK}\x1b[3;2H\x1b[4:2;58:5:2mdouble`,
    then: ['more', SCROLLS, '\x1b[?1049l', 'Q'],
  },
  {
    name: 'these on the main screen under an alternate screen',
    output: `\x1b[4:5mdashed\x1b[0m ${link('http://main.example/', 'id=m')}main${END_LINK}\r\n$ app\x1b[?1049h\x1b[2J\x1b[Halt\x1b[1;7m bar`,
    then: ['\x1b[?1049l', 'Q', SCROLLS],
  },
  {
    name: 'a scroll region, then scrolling output',
    output: 'top\r\n1\r\n2\r\n3\r\n4\r\nbottom\x1b[2;4r\x1b[3;5Hin',
    then: [SCROLLS, '\x1b[H', 'home'],
  },
  {
    name: 'a scroll region on the main screen under an alternate screen with none',
    output: 'a\r\nb\r\nc\x1b[2;5r\x1b[4;3Hmid\x1b[?1049h\x1b[r\x1b[Halt',
    then: [SCROLLS, '\x1b[?1049l', SCROLLS],
  },
  {
    name: 'origin mode inside a scroll region',
    output: 'top\x1b[2;5r\x1b[?6h\x1b[2;3Hhi',
    then: ['\x1b[H', 'home', SCROLLS],
  },
  {
    name: 'origin mode with the whole screen as region',
    output: 'top\x1b[?6h\x1b[3;4Hhere',
    then: ['x', '\x1b[H', 'home'],
  },
  {
    name: 'a curly underline up to the last column, the wrap still pending',
    output: `\x1b[4:3m${'c'.repeat(COLS)}`,
    then: ['Z', SCROLLS],
  },
  {
    name: 'a wide character in the last columns, the wrap still pending, in a link',
    output: `${'n'.repeat(COLS - 2)}${link('http://w.example/')}本`,
    then: ['Z'],
  },
  {
    name: 'insert mode with a curly underline',
    output: '\x1b[4:3mcurly\x1b[0m rest\x1b[4h\x1b[1;3H',
    then: ['ins', SCROLLS],
  },
  {
    name: 'scrollback above a curly underline on the visible rows',
    output: `${Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\r\n')}\x1b[4:4m dotted`,
    then: [SCROLLS],
  },
  {
    name: 'blank rows that carry only a background colour, below the last written row (a screen cleared blue)',
    output: '\x1b[44m\x1b[2J\x1b[Htop\x1b[0m',
    then: ['x', SCROLLS],
  },
  {
    name: 'a background colour erased to the end of a row and across part of another',
    output: 'a\x1b[42m\x1b[K\r\n\x1b[45mb\x1b[K\x1b[0m\r\nc',
    then: ['x'],
  },
  {
    name: 'the bottom row filled to the last column, the wrap still pending',
    output: `${'\r\n'.repeat(ROWS - 1)}${'b'.repeat(COLS)}`,
    then: ['Z', SCROLLS],
  },
  {
    name: 'the bottom row filled to the last column on the alternate screen, the wrap still pending',
    output: `$ app\x1b[?1049h\x1b[${ROWS};1H${'a'.repeat(COLS)}`,
    then: ['Z', '\x1b[?1049l', 'Q'],
  },
  {
    name: 'the bottom row filled to the last column, then the cursor moved up (vttest)',
    output: `\x1b[${ROWS};1H${'b'.repeat(COLS)}\x1b[3;6H`,
    then: ['Z', SCROLLS],
  },
  {
    name: 'the last row written filled to the last column, then the cursor moved left on it',
    output: `top\x1b[${ROWS};1H${'b'.repeat(COLS)}\x1b[${ROWS};10H`,
    then: ['Z'],
  },
  {
    name: 'a middle row filled to the last column as the last content, then the cursor moved to the top',
    output: `x\r\n${'b'.repeat(COLS)}\x1b[1;3H`,
    then: ['Z'],
  },
  {
    name: 'the main screen under an alternate screen: its last row filled to the last column, its cursor moved up',
    output: `\x1b[${ROWS};1H${'m'.repeat(COLS)}\x1b[2;4H\x1b[?1049h\x1b[Halt`,
    then: ['\x1b[?1049l', 'Q'],
  },
  {
    name: 'the main screen cleared blue under an alternate screen',
    output: '\x1b[44m\x1b[2J\x1b[Hmain\x1b[0m\x1b[?1049h\x1b[Halt',
    then: ['\x1b[?1049l', 'Q'],
  },
  {
    name: 'an empty row above a wrapped row (vttest 8.9: insert and delete line)',
    output: `\x1b[3;1H${'x'.repeat(COLS + 5)}\x1b[3;1H\x1b[2K\x1b[1;1Htop`,
    then: ['Z', SCROLLS],
  },
  {
    name: 'application keypad mode (DECKPAM)',
    output: '\x1b=keypad',
    then: ['x'],
  },
  ...[1, 2, 3, 4, 5, 6].map((shape) => ({ name: `cursor shape ${shape} (DECSCUSR)`, output: `shape\x1b[${shape} q`, then: ['x'] })),
];

describe('serializeScreen: a repaint rebuilds the screen cell for cell, and it goes on the same', () => {
  it.each(PROGRAMS)('$name', async ({ output, then }) => {
    const original = take();
    await write(original, output);
    const text = serializeScreen(original);
    const copy = take();
    await write(copy, text);
    const why = `repaint text ${JSON.stringify(text)}`;
    expect(screenState(copy), why).toEqual(screenState(original));
    for (const [i, more] of then.entries()) {
      await Promise.all([write(original, more), write(copy, more)]);
      expect(screenState(copy), `after further output #${i} ${JSON.stringify(more)}; ${why}`).toEqual(screenState(original));
    }
  });

  it.each(PROGRAMS)('$name, serialized twice (by the host, then by attach without scrollback)', async ({ output }) => {
    const original = take();
    await write(original, output);
    const once = take();
    await write(once, serializeScreen(original));
    const twice = take();
    await write(twice, serializeScreen(once));
    expect(screenState(twice)).toEqual(screenState(original));
  });

  it(`writes at most ${MAX_LINK_TEXT_PER_SNAPSHOT} code units of links: cells alternating between two long links do not multiply them`, async () => {
    const original = take();
    const uri = (c: string) => `http://${c.repeat(60_000)}.example/`;
    let output = '';
    for (let i = 0; i < 60; i++) output += `${link(uri(i % 2 ? 'a' : 'b'), `id=${i % 2}`)}${i % 10}`;
    await write(original, output);
    const text = serializeScreen(original);
    expect(text.length).toBeLessThan(MAX_LINK_TEXT_PER_SNAPSHOT + 10_000);
    // The cells past the budget are still there, with their attributes, only without their link.
    const copy = take();
    await write(copy, text);
    expect(copy.term.buffer.active.getLine(1)?.translateToString(true)).toBe(original.term.buffer.active.getLine(1)?.translateToString(true));
  });
});
