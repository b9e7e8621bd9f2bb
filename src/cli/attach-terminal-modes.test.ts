import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { restoreTerminalModes } from './attach-terminal-modes.js';

const { Terminal } = xtermHeadless;
const COLS = 50;

/** What a program's output can leave changed in a terminal, read from xterm (its private fields included). */
function modesOf(term: InstanceType<typeof Terminal>) {
  const core = (term as unknown as { _core: XtermCore })._core;
  const buffer = core.buffers.active;
  return {
    active: term.buffer.active.type,
    modes: term.modes,
    decPrivateModes: core.coreService.decPrivateModes,
    ansiModes: core.coreService.modes,
    cursorHidden: core.coreService.isCursorHidden,
    mouse: [core.coreMouseService.activeProtocol, core.coreMouseService.activeEncoding],
    region: [buffer.scrollTop, buffer.scrollBottom],
    charset: [core._charsetService.glevel, core._charsetService.charset ?? null],
    pen: [core._inputHandler._curAttrData.fg, core._inputHandler._curAttrData.bg],
  };
}

interface XtermCore {
  buffers: { active: { scrollTop: number; scrollBottom: number } };
  coreService: { decPrivateModes: unknown; modes: unknown; isCursorHidden: boolean };
  coreMouseService: { activeProtocol: string; activeEncoding: string };
  _charsetService: { glevel: number; charset: unknown };
  _inputHandler: { _curAttrData: { fg: number; bg: number } };
}

const write = (term: InstanceType<typeof Terminal>, text: string) => new Promise<void>((resolve) => term.write(text, resolve));

/**
 * Each thing a remote program may switch on, on its own, so a reset missing
 * from the list names what it left. (xterm.js models neither DECSCNM nor
 * modifyOtherKeys: their resets are in the list untested here. It keeps tab
 * stops per buffer, where tmux keeps them per terminal: attach-tmux.test.ts
 * checks those.)
 */
const REMOTE_SWITCHES: Record<string, string> = {
  'the alternate screen left for the main one': '\x1b[?1049l',
  'scroll region': '\x1b[3;10r',
  'origin mode': '\x1b[?6h',
  'no autowrap': '\x1b[?7l',
  'insert mode': '\x1b[4h',
  'cursor shape': '\x1b[5 q',
  'line-drawing charset in G0': '\x1b(0',
  'G1 selected (SO)': '\x1b)0\x0e',
  'application cursor keys': '\x1b[?1h',
  'application keypad': '\x1b=',
  'mouse any-event, SGR': '\x1b[?1003h\x1b[?1006h',
  'mouse X10, urxvt': '\x1b[?9h\x1b[?1015h',
  'focus reporting': '\x1b[?1004h',
  'bracketed paste': '\x1b[?2004h',
  'hidden cursor': '\x1b[?25l',
  'colour and bold': '\x1b[1;31;44m',
};

describe('restoreTerminalModes', () => {
  for (const [what, sequence] of Object.entries(REMOTE_SWITCHES)) {
    it(`puts back ${what}, and every other mode, as a fresh terminal has it`, async () => {
      // A fresh terminal stands for the user's, as attach found it; drawing on the alternate screen, as attach does on a terminal.
      const fresh = new Terminal({ cols: COLS, rows: 24, allowProposedApi: true });
      const used = new Terminal({ cols: COLS, rows: 24, allowProposedApi: true });
      const untouched = new Terminal({ cols: COLS, rows: 24, allowProposedApi: true });
      await write(untouched, '\x1b[?1049hsome output');
      await write(used, `\x1b[?1049h${sequence}some output`);
      expect(modesOf(used), 'the switch took effect').not.toEqual(modesOf(untouched));
      await write(used, restoreTerminalModes(COLS));
      expect(modesOf(used)).toEqual(modesOf(fresh));
    });
  }
});
