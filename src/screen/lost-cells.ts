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
