/**
 * Modes a remote program (vim, top, less, a shell's readline) may switch on in
 * the local terminal through the output attach relays, each with the sequence
 * that puts it back to what a shell prompt expects. Written on every way out
 * of attach: the remote program never got the chance to reset them here.
 */
export const TERMINAL_MODE_RESETS = [
  { mode: 'alternate screen', reset: '\x1b[?1049l' },
  { mode: 'application cursor keys', reset: '\x1b[?1l' },
  { mode: 'application keypad', reset: '\x1b>' },
  { mode: 'mouse reporting (X10, normal, button, any)', reset: '\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l' },
  { mode: 'mouse encodings (UTF-8, SGR, urxvt)', reset: '\x1b[?1005l\x1b[?1006l\x1b[?1015l' },
  { mode: 'focus reporting', reset: '\x1b[?1004l' },
  { mode: 'bracketed paste', reset: '\x1b[?2004l' },
  { mode: 'hidden cursor', reset: '\x1b[?25h' },
  { mode: 'text attributes (colour, bold, reverse)', reset: '\x1b[0m' },
] as const;

/** Everything in TERMINAL_MODE_RESETS, in order: leaving the alternate screen first, so later notices land on the main one. */
export const RESTORE_TERMINAL_MODES = TERMINAL_MODE_RESETS.map((m) => m.reset).join('');
