import type { IBufferCell } from '@xterm/headless';
import { cellExtended, fullSgr } from './attribute-sgr.js';
import type { XtermAttributes, XtermLinkData } from './xterm-internals.js';

export type Cell = IBufferCell & XtermAttributes;

/**
 * The most OSC 8 text one snapshot carries, in code units. A link's URI is up to 64 KiB
 * (the escape-string cap) and is written each time it opens: a screen of
 * cells alternating between two such links would make a snapshot of
 * hundreds of MiB. Past this, cells are rewritten without their link.
 */
export const MAX_LINK_TEXT_PER_SNAPSHOT = 1024 * 1024;

/** Text a terminal must not see inside an OSC string: controls would end it or be acted on. */
const OSC_UNSAFE = /[\x00-\x1f\x80-\x9f]/g;

const CLOSE_LINK = '\x1b]8;;\x1b\\';

export const cursorTo = (row: number, col: number): string => `\x1b[${row + 1};${col + 1}H`;

/** How links are named and how much link text is left to write, shared by every writer of one snapshot. */
export class LinkTexts {
  private remaining = MAX_LINK_TEXT_PER_SNAPSHOT;

  constructor(private readonly lookup: (urlId: number) => XtermLinkData | undefined) {}

  /** The OSC 8 that opens the link, or undefined when it is unknown or over the budget. */
  opening(urlId: number): string | undefined {
    const data = this.lookup(urlId);
    if (!data) return undefined;
    const params = data.id === undefined ? '' : `id=${data.id.replace(OSC_UNSAFE, '')}`;
    const text = `\x1b]8;${params};${data.uri.replace(OSC_UNSAFE, '')}\x1b\\`;
    if (text.length > this.remaining) return undefined;
    this.remaining -= text.length;
    return text;
  }
}

/**
 * Writes cells with their exact attributes and link at absolute positions:
 * the cursor only where a cell does not follow the last one, an SGR where
 * the attributes change, an OSC 8 where the link changes. A link stays open
 * across whatever is written between its cells (moves, other sequences), so
 * a link without id= stays one link, as it was in the program's terminal.
 */
export class CellWriter {
  private out = '';
  private sgr: string | undefined;
  private urlId = 0;
  /** Where the cursor is after the last cell, until something else is written. */
  private next: { row: number; col: number } | undefined;

  constructor(private readonly links: LinkTexts) {}

  get text(): string {
    return this.out;
  }

  /** Whether the cursor is at (row, col) of the viewport, as the last cell written left it. */
  isAt(row: number, col: number): boolean {
    return this.next?.row === row && this.next.col === col;
  }

  /** Writes the cell at (row, col) of the viewport; false for a cell that printing cannot rebuild (no character). */
  cell(cell: Cell, row: number, col: number): boolean {
    const chars = cell.getChars();
    if (chars === '') return false;
    if (!this.isAt(row, col)) this.out += cursorTo(row, col);
    const extended = cellExtended(cell);
    this.pen(fullSgr(cell, extended), extended?.urlId ?? 0);
    this.out += chars;
    this.next = { row, col: col + cell.getWidth() };
    return true;
  }

  /** Erases `count` cells from (row, col) with the cell's attributes (ECH fills with the pen's background); the cursor stays. */
  erase(cell: Cell, row: number, col: number, count: number): void {
    if (!this.isAt(row, col)) this.out += cursorTo(row, col);
    this.pen(fullSgr(cell, cellExtended(cell)), 0);
    this.out += `\x1b[${count}X`;
    this.next = { row, col };
  }

  /** Sets the pen: an SGR that sets every attribute, and the link (0 for none). */
  pen(sgr: string, urlId: number): void {
    if (sgr !== this.sgr) this.out += this.sgr = sgr;
    if (urlId === this.urlId) return;
    const opening = urlId ? this.links.opening(urlId) : undefined;
    if (opening) this.out += opening;
    else if (this.urlId) this.out += CLOSE_LINK;
    this.urlId = opening ? urlId : 0;
  }

  /** Text other than cells; the cursor may have moved. */
  raw(text: string): void {
    this.out += text;
    if (text) this.next = undefined;
  }

  closeLink(): void {
    if (this.urlId) this.out += CLOSE_LINK;
    this.urlId = 0;
  }
}
