import { RESET_MODES_ON_SCREEN } from './attach-terminal-modes.js';

/**
 * The user's own scrollback is theirs: what the remote program prints may
 * clear the remote's screen, never the local terminal's history. Two
 * sequences would reach it, and are taken out of what attach writes:
 * - ED 3 (`CSI 3 J`, and xterm's selective `CSI ? 3 J`), "erase saved
 *   lines", which `clear` sends: dropped; the `CSI 2 J` that `clear` sends
 *   with it still clears the screen.
 * - RIS (`ESC c`), which some terminals (VTE) take as "clear the history
 *   too", and every terminal as "leave the alternate screen" attach draws on:
 *   replaced by what it means for the screen, modes reset and the screen
 *   cleared.
 * A sequence cut between chunks is held until it is whole (it is a few bytes).
 */
const SCROLLBACK_ERASERS = /\x1b\[(\??)([0-9;]*)J|\x1bc/g;
const UNFINISHED = /^\x1b(\[\??[0-9;]*)?$/;
const UNFINISHED_MAX = 24;
const RIS_ON_SCREEN = `${RESET_MODES_ON_SCREEN}\x1b[H\x1b[2J`;

export class ScrollbackGuard {
  private carried = '';

  /** Forgets a sequence held half-way: what it began was replaced (a repaint). */
  reset(): void {
    this.carried = '';
  }

  filter(chunk: string): string {
    let text = this.carried + chunk;
    this.carried = '';
    const lastEscape = text.lastIndexOf('\x1b');
    // Output without an escape (most of a `cat`) passes untouched.
    if (lastEscape < 0) return text;
    const tail = text.length - lastEscape <= UNFINISHED_MAX ? text.slice(lastEscape) : '';
    if (UNFINISHED.test(tail)) {
      this.carried = tail;
      text = text.slice(0, lastEscape);
    }
    return text.replace(SCROLLBACK_ERASERS, (whole, _private: string, params: string | undefined) => {
      if (params === undefined) return RIS_ON_SCREEN;
      // ED reads its first parameter only; `CSI 03 J` is ED 3 too.
      return Number(params.split(';')[0] || '0') === 3 ? '' : whole;
    });
  }
}
