import type { IBuffer } from '@xterm/headless';
import { cellExtended, hasLostAttributes } from './attribute-sgr.js';
import type { Cell, CellWriter } from './cell-writer.js';

/**
 * Writes again, each at its absolute position, the cells of the buffer's
 * visible rows whose attributes the serializer addon loses (underline style,
 * underline colour, link). Scrollback rows are left as the addon wrote them:
 * no cursor movement reaches them once they scrolled off. A cell with no
 * character (the blank a wrapping wide character leaves at a row's end)
 * keeps the addon's rendering: printing cannot make one. False when no cell
 * needed it, and nothing was written.
 */
export function writeLostCells(writer: CellWriter, buffer: IBuffer, rows: number, cols: number): boolean {
  let cell: Cell | undefined;
  let wrote = false;
  for (let row = 0; row < rows; row++) {
    const line = buffer.getLine(buffer.baseY + row);
    if (!line) continue;
    for (let col = 0; col < cols; col++) {
      cell = line.getCell(col, cell) as Cell | undefined;
      // A wide character's second column: written with the character.
      if (!cell || cell.getWidth() === 0) continue;
      if (hasLostAttributes(cell, cellExtended(cell)) && writer.cell(cell, row, col)) wrote = true;
    }
  }
  return wrote;
}

/**
 * Writes again the blank rows at the bottom of the buffer's visible rows
 * that carry a background colour (a screen cleared blue, a dialog's box):
 * the serializer addon stops at its last row with content, and would leave
 * them in the default colour. Each run of equal attributes is erased with
 * ECH, which fills with the pen's background as erasing did. False when no
 * such row was found, and nothing was written.
 */
export function writeBackgroundOnlyRows(writer: CellWriter, buffer: IBuffer, rows: number, cols: number): boolean {
  let cell: Cell | undefined;
  let wrote = false;
  for (let row = rows - 1; row >= 0; row--) {
    const line = buffer.getLine(buffer.baseY + row);
    if (!line) continue;
    if (line.translateToString(true) !== '') return wrote;
    let runStart = -1;
    let runCell: Cell | undefined;
    const flush = (end: number) => {
      if (runStart >= 0 && runCell) writer.erase(runCell, row, runStart, end - runStart);
      wrote ||= runStart >= 0;
      runStart = -1;
      runCell = undefined;
    };
    for (let col = 0; col < cols; col++) {
      cell = line.getCell(col, cell) as Cell | undefined;
      if (!cell) break;
      if (cell.getChars() !== '') return wrote; // a space written by a program: a row with content, the addon's
      const coloured = !cell.isBgDefault() || cell.isInverse() !== 0;
      if (runCell && (!coloured || !sameBackground(cell, runCell))) flush(col);
      if (coloured && !runCell) {
        runStart = col;
        runCell = line.getCell(col) as Cell;
      }
    }
    flush(cols);
  }
  return wrote;
}

const sameBackground = (a: Cell, b: Cell) => a.getBgColorMode() === b.getBgColorMode() && a.getBgColor() === b.getBgColor() && a.isInverse() === b.isInverse();
