import type { IBuffer } from '@xterm/headless';
import { fullSgr, hasLostAttributes } from './attribute-sgr.js';
import { type Cell, CellWriter, cursorTo, LinkTexts } from './cell-writer.js';
import { writeBackgroundOnlyRows, writeLostCells } from './lost-cells.js';
import type { HeadlessTerminal } from './terminal-pool.js';
import { type XtermBuffer, xtermCore, xtermLinkData, xtermPen } from './xterm-internals.js';

const SGR_RESET = '\x1b[0m';
const CURSOR_SHAPES: Readonly<Record<string, number>> = { block: 1, underline: 3, bar: 5 };

/** What the serializer addon's text leaves out of a screen, written after (or inside) it. */
export class ScreenStateAdditions {
  private readonly links: LinkTexts;
  private readonly core: ReturnType<typeof xtermCore>;
  /** The normal buffer's scroll region was written: on a real terminal it would also hold on the alternate screen. */
  private regionWritten = false;

  /** `repaintFixes`: also blank rows that carry only a background, and the cursor after a last column written (serialize-screen.ts, SnapshotForm). */
  constructor(
    private readonly term: HeadlessTerminal,
    private readonly repaintFixes = true,
  ) {
    this.links = new LinkTexts((urlId) => xtermLinkData(term, urlId));
    this.core = xtermCore(term);
  }

  /**
   * For the normal buffer while the alternate screen is up, to go right
   * before the addon's `CSI ? 1049 h`: its lost cells and scroll region, then
   * its cursor (which 1049h saves) and a reset pen. Empty when it needs none.
   */
  normalUnderAlternate(): string {
    const writer = new CellWriter(this.links);
    const wroteLost = writeLostCells(writer, this.term.buffer.normal, this.term.rows, this.term.cols);
    const wroteCells = (this.repaintFixes && writeBackgroundOnlyRows(writer, this.term.buffer.normal, this.term.rows, this.term.cols)) || wroteLost;
    const region = this.scrollRegion(this.core?.buffers?.normal, false);
    if (!wroteCells && !region && !this.addonCursorMovedFromPastTheEdge(this.term.buffer.normal)) return '';
    writer.closeLink();
    const { cursorX, cursorY } = this.term.buffer.normal;
    // Leaving the alternate screen puts a cursor past the last column back on it.
    return `${writer.text}${region}${cursorTo(cursorY, Math.min(cursorX, this.term.cols - 1))}${SGR_RESET}`;
  }

  /**
   * For the active buffer, after all of the addon's text: its lost cells,
   * scroll region, the cursor where the program left it, and the program's
   * pen. Modes the addon set (origin, insert) are set aside while these are
   * written and set again. Empty for a screen that needs none of it.
   */
  active(): string {
    const buffer = this.term.buffer.active;
    const internal = buffer.type === 'alternate' ? this.core?.buffers?.alt : this.core?.buffers?.normal;
    const writer = new CellWriter(this.links);
    const wroteLost = writeLostCells(writer, buffer, this.term.rows, this.term.cols);
    const wroteCells = (this.repaintFixes && writeBackgroundOnlyRows(writer, buffer, this.term.rows, this.term.cols)) || wroteLost;
    const region = this.scrollRegion(internal, this.regionWritten);
    const { originMode, insertMode } = this.term.modes;
    const pen = xtermPen(this.term);
    // The addon's `CSI ? 6 h` homed the cursor: origin mode alone needs it put back.
    const cursorLost = wroteCells || region !== '' || originMode || this.addonCursorMovedFromPastTheEdge(buffer);
    if (!cursorLost && !(pen && hasLostAttributes(pen, pen.extended))) return '';
    let setAside = '';
    if (cursorLost) {
      // Without origin mode the cells' positions are absolute; without insert mode their characters replace, not push.
      setAside = (originMode ? '\x1b[?6l' : '') + (insertMode ? '\x1b[4l' : '');
      writer.raw(region);
      // Setting origin mode homes the cursor into the region: the cursor goes back after it, relative to the region's top.
      if (originMode) writer.raw('\x1b[?6h');
      this.cursorBack(writer, buffer, originMode ? (internal?.scrollTop ?? 0) : 0);
      if (insertMode) writer.raw('\x1b[4h');
    }
    // The pen's own extended attributes count even with no underline yet (an SGR 58 before an SGR 4); its link is left open.
    if (pen) writer.pen(fullSgr(pen, pen.extended), pen.extended?.urlId ?? 0);
    return setAside + writer.text;
  }

  /** DECSCUSR, when a program set a cursor shape. */
  cursorShape(): string {
    const modes = this.core?.coreService?.decPrivateModes;
    const shape = modes?.cursorStyle === undefined ? undefined : CURSOR_SHAPES[modes.cursorStyle];
    return shape === undefined ? '' : `\x1b[${shape + (modes?.cursorBlink ? 0 : 1)} q`;
  }

  /**
   * Whether the addon put the cursor back with relative moves that start past
   * the last column: it counts from where its text ends, and when that is a
   * character in a row's last column, it counts from column `cols`, where a
   * real terminal's cursor (and xterm's, once it moves) sits on the last
   * column, the wrap pending. Every move left then lands one column short,
   * once per serialization (host, then attach). Its text ends on its last
   * row with content, or on the bottom row when there is scrollback above.
   */
  private addonCursorMovedFromPastTheEdge(buffer: IBuffer): boolean {
    if (!this.repaintFixes) return false;
    const { rows, cols } = this.term;
    let row = rows - 1;
    if (buffer.baseY === 0) {
      while (row >= 0 && !hasCharacters(buffer, row, cols)) row--;
    }
    if (row < 0 || (buffer.cursorY === row && buffer.cursorX >= cols)) return false;
    const line = buffer.getLine(buffer.baseY + row);
    const last = line?.getCell(cols - 1);
    if (!last) return false;
    if (last.getChars() !== '') return true;
    // The second half of a wide character ends the row too.
    return last.getWidth() === 0 && (line?.getCell(cols - 2)?.getChars() ?? '') !== '';
  }

  /** DECSTBM when the region is not the whole screen, or when `always`. It homes the cursor. */
  private scrollRegion(internal: XtermBuffer | undefined, always: boolean): string {
    const top = internal?.scrollTop;
    const bottom = internal?.scrollBottom;
    if (typeof top !== 'number' || typeof bottom !== 'number') return '';
    if (!always && top === 0 && bottom === this.term.rows - 1) return '';
    this.regionWritten = true;
    return `\x1b[${top + 1};${bottom + 1}r`;
  }

  /**
   * The cursor to where the program left it. Past the last column (a
   * character printed there, the wrap still pending) no cursor movement
   * reaches: the last character is printed again, with its own attributes,
   * unless the last cell written just left the cursor there.
   */
  private cursorBack(writer: CellWriter, buffer: IBuffer, top: number): void {
    const { cursorX, cursorY } = buffer;
    const row = cursorY - top;
    const cols = this.term.cols;
    if (cursorX < cols) return writer.raw(cursorTo(row, cursorX));
    if (writer.isAt(row, cols)) return;
    const line = buffer.getLine(buffer.baseY + cursorY);
    let col = cols - 1;
    let cell = line?.getCell(col) as Cell | undefined;
    if (cell?.getWidth() === 0 && col > 0) cell = line?.getCell(--col) as Cell | undefined;
    // The writer positions by viewport row; under origin mode that is the row within the region.
    if (!cell || !writer.cell(cell, row, col)) writer.raw(cursorTo(row, cols - 1));
  }
}

/** Whether any cell of the row holds a character (a printed space counts: the addon writes it). */
function hasCharacters(buffer: IBuffer, row: number, cols: number): boolean {
  const line = buffer.getLine(buffer.baseY + row);
  for (let col = 0; col < cols; col++) if (line?.getCell(col)?.getChars()) return true;
  return false;
}
