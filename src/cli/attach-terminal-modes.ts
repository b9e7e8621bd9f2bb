/**
 * Modes a remote program (vim, top, less, a shell's readline, a script that
 * set a scroll region) may switch on in the local terminal through the output
 * attach relays, each with the sequence that puts it back to what a shell
 * prompt expects. Written on every way out of attach: the remote program
 * never got the chance to reset them here.
 *
 * Order matters. DECSTBM and DECOM home the cursor, so they go first, while
 * attach still draws on the local alternate screen; leaving it (last) brings
 * back the cursor the user had, on the screen the user had.
 *
 * Left alone on purpose: the title and the colour palette (OSC 0/2/4/10/11),
 * which attach cannot read back and a user's theme may have set.
 */
export const TERMINAL_MODE_RESETS = [
  { mode: 'origin mode (DECOM)', reset: '\x1b[?6l' },
  { mode: 'scroll region (DECSTBM)', reset: '\x1b[r' },
  { mode: 'autowrap off (DECAWM)', reset: '\x1b[?7h' },
  { mode: 'insert mode (IRM)', reset: '\x1b[4l' },
  { mode: 'reverse video screen (DECSCNM)', reset: '\x1b[?5l' },
  { mode: 'cursor shape (DECSCUSR)', reset: '\x1b[0 q' },
  { mode: 'character sets (G0, G1, shift state)', reset: '\x1b(B\x1b)B\x0f' },
  { mode: 'application cursor keys', reset: '\x1b[?1l' },
  { mode: 'application keypad', reset: '\x1b>' },
  { mode: 'mouse reporting (X10, normal, button, any)', reset: '\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l' },
  { mode: 'mouse encodings (UTF-8, SGR, urxvt)', reset: '\x1b[?1005l\x1b[?1006l\x1b[?1015l' },
  { mode: 'focus reporting', reset: '\x1b[?1004l' },
  { mode: 'bracketed paste', reset: '\x1b[?2004l' },
  { mode: 'modifyOtherKeys', reset: '\x1b[>4m' },
  { mode: 'hidden cursor', reset: '\x1b[?25h' },
  { mode: 'text attributes (colour, bold, reverse)', reset: '\x1b[0m' },
  { mode: 'alternate screen', reset: '\x1b[?1049l' },
] as const;

/** Everything in TERMINAL_MODE_RESETS, in order: the cursor-homing resets on the alternate screen, leaving it last. */
export const RESTORE_TERMINAL_MODES = TERMINAL_MODE_RESETS.map((m) => m.reset).join('');

/**
 * RESTORE_TERMINAL_MODES plus tab stops back at every 8 columns (a remote
 * `tabs` or `CSI 3 g` changes them for the whole terminal). Set one by one:
 * DECST8C (`CSI ? 5 W`) is not known to tmux 3.3. The cursor moves to set
 * them, on the alternate screen, before leaving it puts the user's back.
 */
export function restoreTerminalModes(cols: number): string {
  let tabs = '\x1b[3g';
  for (let col = 9; col <= cols; col += 8) tabs += `\x1b[1;${col}H\x1bH`;
  return RESET_MODES_ON_SCREEN + tabs + '\x1b[?1049l';
}

/** The same, staying on the current screen (a repaint on the local alternate screen must not leave it). */
export const RESET_MODES_ON_SCREEN = TERMINAL_MODE_RESETS.filter((m) => m.mode !== 'alternate screen')
  .map((m) => m.reset)
  .join('');
