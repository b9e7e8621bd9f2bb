import { describe, expect, it } from 'vitest';
import { serializeScreen } from './serialize-screen.js';
import { type PooledTerminal, screenTerminals } from './terminal-pool.js';

const write = (p: PooledTerminal, data: string) => new Promise<void>((resolve) => p.term.write(data, resolve));

/** The attributes the next character printed gets, as the cell it lands in reports them. */
async function nextCellStyle(p: PooledTerminal): Promise<string> {
  await write(p, 'Q');
  const buffer = p.term.buffer.active;
  const cell = buffer.getLine(buffer.cursorY + buffer.baseY)!.getCell(buffer.cursorX - 1)!;
  return JSON.stringify([cell.getChars(), cell.isBold(), cell.isInverse(), cell.isUnderline(), cell.isItalic(), cell.getFgColorMode(), cell.getFgColor(), cell.getBgColorMode(), cell.getBgColor()]);
}

/** A program's screen, and the same screen rebuilt in a fresh terminal from its serialisation. */
async function original_and_copy(output: string): Promise<[PooledTerminal, PooledTerminal]> {
  const original = screenTerminals.take(30, 6, 10);
  await write(original, output);
  const copy = screenTerminals.take(30, 6, 10);
  await write(copy, serializeScreen(original));
  return [original, copy];
}

const give = (...terms: PooledTerminal[]) => {
  for (const t of terms) t.term.write('\x1bc', () => screenTerminals.give(t));
};

describe('serializeScreen: a screen rebuilt from its text behaves as the original', () => {
  it("does not carry the main screen's last attributes into the alternate screen: leaving it restores the shell's own", async () => {
    // A shell prompt, then a full-screen program (vim) that last drew its status line in bold reverse and left the pen so.
    const [original, copy] = await original_and_copy('$ vim\x1b[?1049h\x1b[H\x1b[38;5;130m  1 \x1b[39mtext\x1b[6;1H\x1b[1;7m"file" 1L');
    await Promise.all([write(original, '\x1b[?1049l'), write(copy, '\x1b[?1049l')]); // vim quits
    expect(await nextCellStyle(copy)).toBe(await nextCellStyle(original));
    give(original, copy);
  });

  it('keeps the pen the program left set, not the last cell it drew (the serializer ends with it)', async () => {
    const [original, copy] = await original_and_copy('plain \x1b[1;3;4;38;2;10;20;30;48;5;200mstyled\x1b[0m tail \x1b[7;91m');
    expect(await nextCellStyle(copy)).toBe(await nextCellStyle(original));
    give(original, copy);
  });

  it('keeps a hidden cursor and the SGR mouse encoding', async () => {
    const [original, copy] = await original_and_copy('\x1b[?25l\x1b[?1000h\x1b[?1006h');
    const state = (p: PooledTerminal) => {
      const core = (p.term as unknown as { _core: { coreService: { isCursorHidden: boolean }; coreMouseService: { activeEncoding: string } } })._core;
      return [core.coreService.isCursorHidden, core.coreMouseService.activeEncoding, p.term.modes.mouseTrackingMode];
    };
    expect(state(copy)).toEqual([true, 'SGR', 'vt200']);
    expect(state(copy)).toEqual(state(original));
    give(original, copy);
  });

  it('repaints application keypad mode as programs set it, ESC = (tmux ignores the CSI ? 66 h the addon writes)', async () => {
    const [original, copy] = await original_and_copy('\x1b=keypad');
    const text = serializeScreen(original);
    expect(text).toContain('\x1b=');
    expect(text).not.toContain('\x1b[?66h');
    expect(copy.term.modes.applicationKeypadMode).toBe(true);
    give(original, copy);
  });

  it('counts an emoji two columns wide, as modern terminals do (Unicode 11 widths)', async () => {
    const p = screenTerminals.take(30, 6, 10);
    await write(p, 'a\u{1F600}b');
    expect(p.term.buffer.active.cursorX).toBe(4);
    give(p);
  });
});

describe('serializeScreen: scroll regions as a real terminal keeps them', () => {
  it("writes the alternate screen's region after the normal screen's even when it is the whole screen: a real terminal has one region for both", async () => {
    const p = screenTerminals.take(30, 6, 10);
    await write(p, 'shell\x1b[2;5r\x1b[?1049h\x1b[r\x1b[Halt');
    const text = serializeScreen(p);
    const altAt = text.indexOf('\x1b[?1049h');
    expect(text.slice(0, altAt)).toContain('\x1b[2;5r');
    expect(text.slice(altAt)).toContain('\x1b[1;6r');
    give(p);
  });
});
