import type { HostLimits } from './options.js';

/**
 * Why a screen of this size may not be allocated, or undefined when it fits.
 * Checked before the PTY or the screen model is resized: xterm allocates
 * cols × rows cells at once and cols per scrollback line as output arrives.
 */
export function screenSizeRefusal(cols: number, rows: number, limits: HostLimits): string | undefined {
  if (cols > limits.maxCols || rows > limits.maxRows) return `${cols}x${rows} > ${limits.maxCols}x${limits.maxRows}`;
  const cells = screenCells(cols, rows, limits);
  if (cells > limits.maxScreenCells) {
    return `${cols}x${rows} with ${limits.scrollbackLines} scrollback lines = ${cells} cells > maxScreenCells ${limits.maxScreenCells}`;
  }
  return undefined;
}

/** The cells a screen of this size may come to hold: its rows and its scrollback, each `cols` wide. */
export function screenCells(cols: number, rows: number, limits: Pick<HostLimits, 'scrollbackLines'>): number {
  return cols * (rows + limits.scrollbackLines);
}

/**
 * xterm refuses (throws, and drops) a write once 50,000,000 units are queued
 * unparsed: a screen backlog must stay well below that.
 */
export const MAX_SCREEN_BACKLOG_BYTES = 32 * 1024 * 1024;

/** Refuses host options that no terminal could satisfy: a configuration mistake, thrown at startup. */
export function checkScreenLimits(limits: HostLimits): void {
  if (limits.screenBacklogBytes > MAX_SCREEN_BACKLOG_BYTES) {
    throw new RangeError(`screenBacklogBytes ${limits.screenBacklogBytes} > ${MAX_SCREEN_BACKLOG_BYTES}: xterm drops output once 50,000,000 units wait to be parsed`);
  }
  if (limits.scrollbackLines > limits.maxScrollbackLines) {
    throw new RangeError(`scrollbackLines ${limits.scrollbackLines} > maxScrollbackLines ${limits.maxScrollbackLines}`);
  }
  if (limits.maxTotalScreenCells < limits.maxScreenCells) {
    throw new RangeError(`maxTotalScreenCells ${limits.maxTotalScreenCells} < maxScreenCells ${limits.maxScreenCells}: no terminal could grow to its own limit`);
  }
  const refusal = screenSizeRefusal(limits.defaultCols, limits.defaultRows, limits);
  if (refusal) throw new RangeError(`the default terminal size does not fit the host limits: ${refusal}`);
}
