import { AltScreenFilter, AltScreenWatch, ENTER_LOCAL_ALTERNATE_SCREEN, SNAPSHOT_ENTERS_ALTERNATE } from './attach-alt-screen.js';
import { ScrollbackGuard } from './attach-scrollback-guard.js';
import { RESET_MODES_ON_SCREEN, RESTORE_TERMINAL_MODES } from './attach-terminal-modes.js';

/**
 * Before a repaint, the terminal is put in a known state: the modes, scroll
 * region and cursor shape the remote program had set are reset (the snapshot
 * sets again those it still has; one that ended while the link was down
 * leaves none behind), then the screen is cleared. Not ED 3 (erase
 * scrollback): the user's own scrollback from before attach is theirs, and stays.
 */
const RESET_AND_CLEAR = `${RESTORE_TERMINAL_MODES}\x1b[H\x1b[2J`;
/** The same on the local alternate screen, which the repaint must not leave. */
const RESET_AND_CLEAR_ON_CANVAS = `${RESET_MODES_ON_SCREEN}\x1b[H\x1b[2J`;
const LEAVE_ALTERNATE = '\x1b[?1049l';
const SAVE_CURSOR = '\x1b7'; // DECSC also saves the text attributes, so the remote's colours survive the status line
const RESTORE_CURSOR = '\x1b8';

/** The local terminal, as attach draws on it: the remote screen, plus termwire's notices. */
export interface AttachScreenOutput {
  /** `written` runs once the text has left for the terminal (Node's Writable.write callback). */
  write(text: string, written?: () => void): unknown;
  readonly rows?: number | undefined;
  readonly columns?: number | undefined;
}

/** How the status line goes away: after `shownMs`, `refresh` asks the host for its screen, whose repaint has no status line. */
export interface StatusLineRemoval {
  readonly shownMs: number;
  refresh(): void;
}

/** Long enough to read "link back after 12.3 s down"; the remote screen is whole again after it. */
export const STATUS_LINE_SHOWN_MS = 3_000;

/**
 * Writes the remote screen and termwire's notices to the local terminal.
 * A notice about a reconnect would be wiped at once by the repaint that
 * follows it, so such notices are drawn again after that repaint, on the
 * bottom row, with the cursor put back where the remote program left it;
 * a while later the screen is repainted without it, so it leaves no trace.
 * Once the remote screen is drawn on a canvas, every notice goes there, on
 * the bottom row: written in the output's stream it would scroll the remote
 * screen and leave its cursor a line below where the program thinks it is.
 * On a terminal every notice fits in one row.
 */
export class AttachScreen {
  private afterRepaint: string[] = [];
  /** The last thing written was a retry notice: the next one replaces it rather than adding a line. */
  private retryShown = false;
  /** The last thing written was a notice line of its own, its line ended: the next starts there, with no blank line between. */
  private afterNoticeLine = false;
  /** The notices on the status line now, joined; a repaint takes them away. */
  private statusTexts: string[] = [];
  /** The last of them is a retry notice, which the next one replaces. */
  private statusEndsInRetry = false;
  /** Whether the remote left origin mode on, as the text written here says (whole sequences: the filters hold cut ones). */
  private originMode = false;
  private removal: NodeJS.Timeout | undefined;
  /** Output waiting for repaints still being prepared, one list per repaint, oldest first. */
  private readonly outputHeld: Array<Array<() => void>> = [];
  private repaints: Promise<void> = Promise.resolve();
  private painted = false;
  private closed = false;
  /** The remote's output never erases the user's scrollback, on a canvas or not. */
  private readonly scrollbackGuard = new ScrollbackGuard();

  /** Drawing on the local alternate screen: the remote's own screen switches are taken out of what is written. */
  private readonly canvas: { readonly filter: AltScreenFilter; readonly remoteLeftAlternate: () => void } | undefined;
  /** Native mode: output flows into the local terminal's own scrollback, and its screen switches with the remote's. */
  private readonly native: AltScreenWatch | undefined;

  /**
   * `onRemoteLeftAlternate`, where given, makes the local alternate screen the
   * canvas (see attach-alt-screen.ts); it runs when the remote program leaves
   * its own alternate screen, whose main screen must then be repainted.
   */
  constructor(
    private readonly out: AttachScreenOutput,
    private readonly statusLineRemoval?: StatusLineRemoval,
    onRemoteLeftAlternate?: () => void,
    /**
     * Native mode (a terminal, without a canvas): as under ssh, the remote's
     * output reaches the local scrollback and the local alternate screen is
     * used only while the remote uses its own. Notices are lines of their own
     * on the main screen, where a status line could only go by a repaint that
     * would put the screen into the scrollback twice; on the alternate screen
     * they go on the status line.
     */
    native = false,
  ) {
    this.canvas = onRemoteLeftAlternate ? { filter: new AltScreenFilter(), remoteLeftAlternate: onRemoteLeftAlternate } : undefined;
    this.native = native && !this.canvas ? new AltScreenWatch() : undefined;
  }

  /** Before anything else is drawn: on a canvas, the local alternate screen, over the user's screen, which comes back when attach leaves it. */
  begin(): void {
    if (this.canvas) this.out.write(ENTER_LOCAL_ALTERNATE_SCREEN);
  }

  /**
   * attach is ending: the remote screen is drawn no more (a repaint still
   * being prepared, output still arriving), so nothing lands on the user's own
   * screen once it is back; only notices are written from now on.
   */
  dispose(): void {
    clearTimeout(this.removal);
    this.closed = true;
  }

  /** A notice now: on the status line over a drawn canvas, else on its own line. */
  notice(text: string): void {
    if (this.onStatusLine()) return this.status(text);
    this.retryShown = false;
    this.out.write(`${this.lineStart()}${noticeLine(text, this.out.columns || undefined)}\r\n`);
    this.afterNoticeLine = true;
  }

  /** Where a notice line starts: on a line of its own, after the remote's output (which may end mid-line). */
  private lineStart(): string {
    return this.afterNoticeLine ? '' : '\r\n';
  }

  /** A notice about an attempt that will be retried: on a terminal a run of them shares one line (cut to the width, so it is one row), the latest shown. */
  retryNotice(text: string): void {
    // Not a terminal (a log): every line kept, whole, with no cursor movement.
    if (!this.out.columns) return this.notice(text);
    if (this.onStatusLine()) return this.status(text, true);
    const line = noticeLine(text, this.width());
    // After a retry notice: up to its row, cleared, and written over.
    this.out.write(this.retryShown ? `\x1b[1A\r\x1b[2K${line}\r\n` : `${this.lineStart()}${line}\r\n`);
    this.retryShown = true;
    this.afterNoticeLine = true;
  }

  /** A notice drawn now, and again on the status line after the next repaint. */
  noticeOverRepaint(text: string): void {
    // A line of its own on the native main screen stays where it was written; a repaint scrolls it up, never away.
    const inline = this.native !== undefined && !this.onStatusLine();
    this.notice(text);
    if (!inline) this.afterRepaint.push(text);
  }

  /**
   * Replaces the screen with a snapshot once its text is ready; output that
   * arrives meanwhile waits, in order, and goes out after it.
   */
  repaintWhenReady(snapshotText: Promise<string>): void {
    const waiting: Array<() => void> = [];
    this.outputHeld.push(waiting);
    // In the order they were asked for, whichever text is ready first.
    this.repaints = Promise.all([this.repaints, snapshotText]).then(([, text]) => {
      this.repaint(text);
      this.outputHeld.shift();
      for (const write of waiting) write();
    });
  }

  /** Replaces the screen with a snapshot, then shows the notices waiting for it. */
  repaint(snapshotText: string): void {
    if (this.closed) return;
    this.retryShown = false;
    this.afterNoticeLine = false;
    this.statusTexts = [];
    this.statusEndsInRetry = false;
    // A sequence a filter holds half of belongs to output the snapshot replaces.
    this.scrollbackGuard.reset();
    if (this.native && this.painted) {
      this.out.write(this.nativeRepaint(snapshotText));
    } else if (this.canvas) {
      this.canvas.filter.reset();
      // The snapshot's own switch to the remote's alternate screen becomes a clear, like the live one.
      const text = RESET_AND_CLEAR_ON_CANVAS + new AltScreenFilter().filter(snapshotText).text;
      this.originMode = originModeAfter(text, this.originMode);
      this.out.write(text);
    } else {
      // The first time, what the user's screen showed goes up into their scrollback rather than being erased.
      const keepUserScreen = this.painted ? '' : this.native ? this.scrollScreenIntoScrollback() : `\x1b[${this.out.rows || 24};1H${'\n'.repeat(this.out.rows || 24)}`;
      this.out.write(keepUserScreen + RESET_AND_CLEAR + snapshotText);
      this.native?.see(snapshotText);
    }
    this.painted = true;
    if (this.afterRepaint.length === 0) return;
    this.status(this.afterRepaint.join('; '));
    this.afterRepaint = [];
  }

  /**
   * A notice on the bottom row, over the remote screen, which is repainted
   * without it a while later; before the notices already there (joined), or
   * in place of the last one when both are retry notices.
   */
  status(text: string, retry = false): void {
    if (this.closed) return;
    if (this.native && !this.onStatusLine()) return this.notice(text);
    this.retryShown = false;
    if (retry && this.statusEndsInRetry) this.statusTexts.pop();
    this.statusTexts.push(text);
    this.statusEndsInRetry = retry;
    // The newest first: a cut takes the oldest news.
    this.statusLine([...this.statusTexts].reverse().join('; '));
    const removal = this.statusLineRemoval;
    if (!removal) return;
    clearTimeout(this.removal);
    this.removal = setTimeout(() => removal.refresh(), removal.shownMs);
    this.removal.unref();
  }

  /** The remote's output; `written` runs once the terminal has it, which is when the host may send more. */
  output(text: string, written: () => void): void {
    this.retryShown = false;
    this.afterNoticeLine = false;
    const held = this.outputHeld.at(-1);
    if (held) held.push(() => this.write(text, written));
    else this.write(text, written);
  }

  private write(remoteText: string, written: () => void): void {
    if (this.closed) return written();
    const text = this.scrollbackGuard.filter(remoteText);
    if (this.native) {
      this.out.write(text, written);
      // The status line was on the alternate screen, gone with it: no repaint is owed for it.
      if (this.native.see(text)) this.dropStatusLine();
      return;
    }
    if (!this.canvas) return void this.out.write(text, written);
    const filtered = this.canvas.filter.filter(text);
    this.originMode = originModeAfter(filtered.text, this.originMode);
    this.out.write(filtered.text, written);
    if (filtered.leftAlternateScreen) this.canvas.remoteLeftAlternate();
  }

  private onStatusLine(): boolean {
    return (this.canvas !== undefined || this.native?.inAlternate === true) && this.painted && !this.closed;
  }

  /**
   * A later repaint in native mode (a reconnect that could not resume, a
   * status line going). On the remote's alternate screen, only that screen
   * is drawn, on the local one: the local main screen keeps what it has. On
   * the main screen, what the local screen shows goes up into the scrollback
   * first, so nothing the remote printed is erased unseen, and the screen is
   * drawn without the remote's history, which the scrollback already holds.
   */
  private nativeRepaint(snapshotText: string): string {
    const altAt = snapshotText.indexOf(SNAPSHOT_ENTERS_ALTERNATE);
    const text = altAt >= 0 ? RESET_MODES_ON_SCREEN + snapshotText.slice(altAt) : `${this.native!.inAlternate ? LEAVE_ALTERNATE : ''}${this.scrollScreenIntoScrollback()}${RESET_AND_CLEAR}${snapshotText}`;
    this.native!.see(altAt >= 0 ? snapshotText.slice(altAt) : LEAVE_ALTERNATE + snapshotText);
    return text;
  }

  /**
   * A line feed per row from the cursor's line: the rows down to the cursor
   * scroll into the scrollback, the blank ones below it do not (output is not
   * processed, so LF moves down only).
   */
  private scrollScreenIntoScrollback(): string {
    return `\r${'\n'.repeat(this.out.rows || 24)}`;
  }

  private dropStatusLine(): void {
    clearTimeout(this.removal);
    this.statusTexts = [];
    this.statusEndsInRetry = false;
  }

  /**
   * The bottom row, whatever the remote program set: origin mode off, so the
   * row is the screen's, not the region's, and set again before DECRC puts
   * the cursor back (xterm.js's DECRC does not restore it, xterm's and
   * tmux's do); ASCII (DECRC puts the program's character set back). Insert
   * mode may push the row's old text right: the erase after the notice takes it.
   */
  private statusLine(text: string): void {
    const rows = this.out.rows || 24;
    const origin = this.originMode ? ['\x1b[?6l', '\x1b[?6h'] : ['', ''];
    this.out.write(`${SAVE_CURSOR}${origin[0]}\x1b(B\x0f\x1b[${rows};1H\x1b[0m${noticeLine(text, this.width())}\x1b[K${origin[1]}${RESTORE_CURSOR}`);
  }

  private width(): number {
    return this.out.columns || 80;
  }
}

const ORIGIN_MODE_SWITCH = /\x1b\[\?([0-9;]*)([hl])|\x1b\[!p|\x1bc/g;

/** Whether origin mode (DECOM) is on after `text`, from `before`: the last DECSET/DECRST 6, soft reset or full reset decides. */
function originModeAfter(text: string, before: boolean): boolean {
  if (!text.includes('\x1b')) return before;
  let on = before;
  for (const [whole, params, action] of text.matchAll(ORIGIN_MODE_SWITCH)) {
    if (whole === '\x1b[!p' || whole === '\x1bc') on = false;
    else if (params!.split(';').includes('6')) on = action === 'h';
  }
  return on;
}

/**
 * A notice in reverse video; when `width` is given, at most one column short
 * of it (a character in a row's last cell may wrap or scroll), a cut one
 * ending in `…]`. Counted in UTF-16 units: notices are ASCII but for names
 * and messages a host sent.
 */
export function noticeLine(text: string, width?: number): string {
  const notice = `[termwire: ${text}]`;
  const room = width === undefined ? Infinity : Math.max(3, width - 1);
  return `\x1b[7m${notice.length <= room ? notice : `${notice.slice(0, room - 2)}…]`}\x1b[0m`;
}
