/**
 * attach draws the remote terminal on the local terminal's alternate screen,
 * as tmux does: the user's own screen and scrollback stay untouched beneath
 * it, and come back as they were when attach ends. The remote program's own
 * switches between its screens (DECSET/DECRST 47, 1047, 1049) must then not
 * reach the local terminal, which would leave its alternate screen and draw
 * over the user's. They are taken out of the output here: entering the
 * remote's alternate screen becomes a clear (it starts blank), and leaving it
 * is reported, so attach can repaint the remote's main screen from the host's
 * copy. Sequences split across chunks are held until they are whole.
 */
const ALT_SCREEN_MODES = new Set(['47', '1047', '1049']);
/** CSI ? params h|l, and an unfinished one at the end of a chunk. */
const PRIVATE_MODE = /\x1b\[\?([0-9;]*)([hl])/g;
const UNFINISHED = /^\x1b(\[(\?[0-9;]*)?)?$/;
const UNFINISHED_MAX = 24;
const CLEAR_SCREEN = '\x1b[2J';

export interface FilteredOutput {
  readonly text: string;
  /** The remote left its alternate screen in this chunk: its main screen must be repainted. */
  readonly leftAlternateScreen: boolean;
}

export class AltScreenFilter {
  private carried = '';

  /** Forgets a sequence held half-way: what it began was replaced (a repaint). */
  reset(): void {
    this.carried = '';
  }

  filter(chunk: string): FilteredOutput {
    let text = this.carried + chunk;
    // Only the last escape can be unfinished; output without one (most of a `cat`) passes untouched.
    const lastEscape = text.lastIndexOf('\x1b');
    if (lastEscape < 0) {
      this.carried = '';
      return { text, leftAlternateScreen: false };
    }
    // An unfinished private mode is a few characters long: a longer tail is finished text.
    const tail = text.length - lastEscape <= UNFINISHED_MAX ? text.slice(lastEscape) : '';
    this.carried = UNFINISHED.test(tail) ? tail : '';
    if (this.carried) text = text.slice(0, lastEscape);
    if (!text.includes('\x1b[?')) return { text, leftAlternateScreen: false };
    let leftAlternateScreen = false;
    const out = text.replace(PRIVATE_MODE, (whole, params: string, action: string) => {
      const modes = params.split(';');
      if (!modes.some((m) => ALT_SCREEN_MODES.has(m))) return whole;
      if (action === 'l') leftAlternateScreen = true;
      const others = modes.filter((m) => !ALT_SCREEN_MODES.has(m));
      const rest = others.length ? `\x1b[?${others.join(';')}${action}` : '';
      return action === 'h' ? `${rest}${CLEAR_SCREEN}` : rest;
    });
    return { text: out, leftAlternateScreen };
  }
}

/** Enters the local alternate screen; RESTORE_TERMINAL_MODES leaves it, and the user's screen is back. */
export const ENTER_LOCAL_ALTERNATE_SCREEN = '\x1b[?1049h\x1b[H\x1b[2J';

/**
 * Follows whether the remote program is on its alternate screen, from the
 * output as it is relayed untouched (attach's native mode, where the local
 * terminal switches screens with the remote, as under ssh). A switch cut
 * between chunks counts once its chunk completes it.
 */
export class AltScreenWatch {
  private carried = '';
  private alternate = false;

  get inAlternate(): boolean {
    return this.alternate;
  }

  /** Reads relayed text; true when it took the remote back to its main screen. */
  see(chunk: string): boolean {
    const text = this.carried + chunk;
    const lastEscape = text.lastIndexOf('\x1b');
    const tail = lastEscape >= 0 && text.length - lastEscape <= UNFINISHED_MAX ? text.slice(lastEscape) : '';
    this.carried = UNFINISHED.test(tail) ? tail : '';
    if (!text.includes('\x1b[?')) return false;
    const was = this.alternate;
    for (const [, params, action] of text.matchAll(PRIVATE_MODE)) {
      if (params!.split(';').some((m) => ALT_SCREEN_MODES.has(m))) this.alternate = action === 'h';
    }
    return was && !this.alternate;
  }
}

/** The switch a snapshot of a screen on its alternate screen makes (src/screen/serialize-screen.ts). */
export const SNAPSHOT_ENTERS_ALTERNATE = '\x1b[?1049h';
