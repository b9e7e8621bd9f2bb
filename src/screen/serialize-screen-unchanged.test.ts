import { afterEach, describe, expect, it } from 'vitest';
import { serializeScreen } from './serialize-screen.js';
import { type PooledTerminal, screenTerminals } from './terminal-pool.js';

const write = (p: PooledTerminal, data: string) => new Promise<void>((resolve) => p.term.write(data, resolve));

/**
 * serializeScreen as released before underline styles, links, scroll
 * regions and cursor shapes were added, kept here as the reference: the
 * compatibility gate compares a new host's snapshots with an old host's byte
 * for byte, so a screen without those features must serialise exactly so.
 */
function releasedSerializeScreen(pooled: PooledTerminal): string {
  const SGR_RESET = '\x1b[0m';
  const leavesAttributesSet = (text: string) => {
    const lastReset = Math.max(text.lastIndexOf(SGR_RESET), text.lastIndexOf('\x1b[m'));
    return /\x1b\[[0-9;:]*m/.test(text.slice(lastReset < 0 ? 0 : lastReset + 3));
  };
  // Changed on purpose since: application keypad as ESC = (DECKPAM), which tmux knows, where the addon writes CSI ? 66 h (serialize-screen.ts).
  let text = pooled.serializer.serialize().replace('\x1b[?66h', '\x1b=');
  const altAt = text.indexOf('\x1b[?1049h');
  if (altAt >= 0 && leavesAttributesSet(text.slice(0, altAt))) text = `${text.slice(0, altAt)}${SGR_RESET}${text.slice(altAt)}`;
  const core = (pooled.term as unknown as { _core: { coreService: { isCursorHidden: boolean }; coreMouseService: { activeEncoding: string } } })._core;
  if (core.coreService.isCursorHidden) text += '\x1b[?25l';
  if (core.coreMouseService.activeEncoding === 'SGR') text += '\x1b[?1006h';
  return text;
}

const ORDINARY_SCREENS: ReadonlyArray<readonly [string, string]> = [
  ['an empty screen', ''],
  ['a prompt', '$ '],
  ['colours, bold, italics, single underlines (SGR 4, 4:1, 21 then 24)', '\x1b[1;31mred\x1b[0m \x1b[3;4mit\x1b[24m \x1b[4:1mone\x1b[4:0m \x1b[38;5;200;48;2;1;2;3mx\x1b[7;9;53;2mall\x1b[0m'],
  ['an underline style or colour set and cleared before anything was printed with it', '\x1b[4:3;58:5:9m\x1b[0mplain \x1b[4:5m\x1b[24m\x1b[59mtext'],
  ['a link opened and closed around nothing', '\x1b]8;id=a;http://x.example/\x1b\\\x1b]8;;\x1b\\text'],
  ['wrapped lines, wide characters and scrollback', `${Array.from({ length: 14 }, (_, i) => `line ${i} 日本`).join('\r\n')}\r\n${'w'.repeat(45)}`],
  ['the wrap pending after the last column', 'x'.repeat(30)],
  ['a full-screen program on the alternate screen, its pen left bold reverse', '$ vim\x1b[?1049h\x1b[H\x1b[38;5;130m  1 \x1b[39mtext\x1b[6;1H\x1b[1;7m"file" 1L'],
  ['modes: hidden cursor, SGR mouse, bracketed paste, application keys, insert mode', '\x1b[?25l\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?1h\x1b=\x1b[4htext'],
  ['a scroll region set to the whole screen, and one set and reset', '\x1b[1;6rtop\x1b[2;4r\x1b[rback'],
  ['a cursor shape set and reset to the default', '\x1b[4 q\x1b[0 qshape'],
];

const taken: PooledTerminal[] = [];
afterEach(() => {
  for (const p of taken.splice(0)) screenTerminals.give(p);
});

describe('serializeScreen on a screen without underline styles, links, scroll regions or cursor shapes', () => {
  it.each(ORDINARY_SCREENS)('%s: the released text, byte for byte', async (_name, output) => {
    const p = screenTerminals.take(30, 6, 10);
    taken.push(p);
    await write(p, output);
    expect(serializeScreen(p)).toBe(releasedSerializeScreen(p));
  });
});
