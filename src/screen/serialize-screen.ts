import { addonSteps, type SerializeStep } from './addon-rows.js';
import { ScreenStateAdditions } from './screen-state-additions.js';
import type { PooledTerminal } from './terminal-pool.js';
import { xtermCore } from './xterm-internals.js';

const ALT_SCREEN_ON = '\x1b[?1049h';
const SGR_RESET = '\x1b[0m';

/** Whether text written after `text` would get attributes other than the default ones: an SGR other than a reset follows its last reset. */
function leavesAttributesSet(text: string): boolean {
  const lastReset = Math.max(text.lastIndexOf(SGR_RESET), text.lastIndexOf('\x1b[m'));
  return /\x1b\[[0-9;:]*m/.test(text.slice(lastReset < 0 ? 0 : lastReset + 3));
}

/**
 * The addon writes application keypad mode as `CSI ? 66 h` (DECNKM), which
 * tmux and many terminals ignore; programs set it with `ESC =` (DECKPAM),
 * which every terminal knows. Its modes come last, after every cell, so the
 * last occurrence is the mode's.
 */
function keypadAsProgramsSetIt(text: string): string {
  const at = text.lastIndexOf(DECNKM_ON);
  return at < 0 ? text : `${text.slice(0, at)}${DECKPAM}${text.slice(at + DECNKM_ON.length)}`;
}
const DECNKM_ON = '\x1b[?66h';

/**
 * The addon forces a wrapped row's wrap by printing over the row before it
 * and erasing that again, moving right and back by the row's written width;
 * for an empty row that width is 0, and `CSI 0 C` moves one column (0 means
 * 1), leaving a stray '-' in the first column (vttest's insert/delete line
 * screen). A move by 0 is nothing else the addon writes (its own moves are
 * by 1 or more, and cells hold no escapes), so it is taken out.
 */
function withoutZeroMoves(text: string): string {
  return text.includes('\x1b[0') ? text.replaceAll('\x1b[0C', '').replaceAll('\x1b[0D', '') : text;
}
const DECKPAM = '\x1b=';

/**
 * Which fixes a serialization carries:
 * - `repaint`: every one, for a screen redrawn on a terminal this build
 *   writes to itself (attach's repaint);
 * - `wire`: none of those that change what a released client draws (keypad
 *   as `ESC =`, no stray character from a forced wrap, blank rows that carry
 *   only a background, the cursor after a last column written): a host's
 *   snapshots go to clients of earlier releases too, and changing what they
 *   draw is a Rule 3 break the gate reports (SNAPSHOT_CONTENT_CHANGED). A
 *   client that negotiated snapshotRepaint gets the repaint form instead.
 */
export type SnapshotForm = 'repaint' | 'wire';

/**
 * The screen as text that, written to a fresh terminal, reproduces it: the
 * serializer's text, with what it leaves out added.
 * - The attributes the serializer leaves set after the main screen (it ends
 *   each screen with the pen, which is the alternate screen program's) must
 *   not reach the switch to the alternate screen: they would be saved with
 *   the cursor there and come back when the program leaves it (the shell
 *   stayed in bold reverse video after vim).
 * - Application keypad mode as programs set it (`ESC =`), and no stray
 *   character from a forced wrap over an empty row.
 * - A hidden cursor, and the SGR mouse encoding (a mouse program's clicks
 *   otherwise arrive in a form it did not ask for).
 * - Underline styles and colours, links, scroll regions, the cursor shape,
 *   and the cursor and pen they disturb (screen-state-additions.ts). A screen
 *   without them gets exactly the text it got before they were added: older
 *   releases' snapshots are compared byte for byte.
 */
export function serializeScreen(pooled: PooledTerminal, form: SnapshotForm = 'repaint'): string {
  return withAdditions(pooled, form, pooled.serializer.serialize());
}

/**
 * serializeScreen's text, taken in steps a few rows long, so the thread that
 * serialises one large screen can serve others between them (the host's
 * snapshots, ScreenBook). The text is serializeScreen's, byte for byte; the
 * terminal must not change between the first step and the last.
 */
export class ScreenSerialization {
  private readonly addon: SerializeStep;
  private raw: string | undefined;

  constructor(
    private readonly pooled: PooledTerminal,
    private readonly form: SnapshotForm,
  ) {
    this.addon = addonSteps(pooled);
  }

  /** Serialises until `over()` (at least one step); the text once done. What the addon leaves out is added in a step of its own. */
  step(over: () => boolean): string | undefined {
    if (this.raw === undefined) {
      this.raw = this.addon(over);
      if (this.raw === undefined || over()) return undefined;
    }
    return withAdditions(this.pooled, this.form, this.raw);
  }
}

function withAdditions(pooled: PooledTerminal, form: SnapshotForm, raw: string): string {
  let text = form === 'repaint' ? withoutZeroMoves(keypadAsProgramsSetIt(raw)) : raw;
  const additions = new ScreenStateAdditions(pooled.term, form === 'repaint');
  const altAt = text.indexOf(ALT_SCREEN_ON);
  if (altAt >= 0) {
    const normal = pooled.term.buffer.active.type === 'alternate' ? additions.normalUnderAlternate() : '';
    const before = text.slice(0, altAt) + normal;
    text = `${before}${leavesAttributesSet(before) ? SGR_RESET : ''}${text.slice(altAt)}`;
  }
  const internals = xtermCore(pooled.term);
  if (internals?.coreService?.isCursorHidden) text += '\x1b[?25l';
  if (internals?.coreMouseService?.activeEncoding === 'SGR') text += '\x1b[?1006h';
  return text + additions.active() + additions.cursorShape();
}
