// Not ED 3 (erase scrollback): the user's own scrollback from before attach is theirs, and stays.
const CLEAR_AND_HOME = '\x1b[H\x1b[2J';
const SAVE_CURSOR = '\x1b7'; // DECSC also saves the text attributes, so the remote's colours survive the status line
const RESTORE_CURSOR = '\x1b8';

/** The local terminal, as attach draws on it: the remote screen, plus termwire's notices. */
export interface AttachScreenOutput {
  /** `written` runs once the text has left for the terminal (Node's Writable.write callback). */
  write(text: string, written?: () => void): unknown;
  readonly rows?: number | undefined;
  readonly columns?: number | undefined;
}

/**
 * Writes the remote screen and termwire's notices to the local terminal.
 * A notice about a reconnect would be wiped at once by the repaint that
 * follows it, so such notices are drawn again after that repaint, on the
 * bottom row, with the cursor put back where the remote program left it.
 */
export class AttachScreen {
  private afterRepaint: string[] = [];

  constructor(private readonly out: AttachScreenOutput) {}

  /** A notice on its own line, now. */
  notice(text: string): void {
    this.out.write(`\r\n\x1b[7m[termwire: ${text}]\x1b[0m\r\n`);
  }

  /** A notice drawn now, and again on the status line after the next repaint. */
  noticeOverRepaint(text: string): void {
    this.notice(text);
    this.afterRepaint.push(text);
  }

  /** Replaces the screen with a snapshot, then shows the notices waiting for it. */
  repaint(snapshotText: string): void {
    this.out.write(CLEAR_AND_HOME + snapshotText);
    if (this.afterRepaint.length === 0) return;
    this.statusLine(this.afterRepaint.join('; '));
    this.afterRepaint = [];
  }

  /** The remote's output; `written` runs once the terminal has it, which is when the host may send more. */
  output(text: string, written: () => void): void {
    this.out.write(text, written);
  }

  private statusLine(text: string): void {
    const rows = this.out.rows || 24;
    const cols = this.out.columns || 80;
    // One column short of the edge: a character in the last cell of the bottom row may scroll the screen.
    const line = `[termwire: ${text}]`.slice(0, Math.max(1, cols - 1));
    this.out.write(`${SAVE_CURSOR}\x1b[${rows};1H\x1b[0m\x1b[7m${line}\x1b[0m\x1b[K${RESTORE_CURSOR}`);
  }
}
