import { MULTIBYTE } from './steps.js';

const ROWS = 23; // the 24th row stays empty: a full last row would scroll on the next character
const COLUMNS = 80;
const FILLER = [...`.${MULTIBYTE}`];
/** The filler that completes a page after a head of n characters: the same for every page whose head is that long, so drawn once. */
const fillerAfter = new Map<number, string>();

function fillerAfterHead(headLength: number): string {
  let filler = fillerAfter.get(headLength);
  if (filler === undefined) {
    const cells: string[] = [];
    for (let column = headLength; column < ROWS * COLUMNS; column++) cells.push(FILLER[column % FILLER.length]!);
    fillerAfter.set(headLength, (filler = cells.join('')));
  }
  return filler;
}

/** At least `bytes` of screenfuls headed `label`, then a cleared screen with the line `<label> end`. */
export function screenfulsThenMarker(label: string, bytes: number): string {
  const pages: string[] = [];
  for (let page = 0, written = 0; written < bytes; page++) {
    const head = [...`${label} page ${page} `];
    const text = `\x1b[H${head.join('')}${fillerAfterHead(head.length)}`;
    pages.push(text);
    written += Buffer.byteLength(text);
  }
  return `${pages.join('')}\x1b[2J\x1b[H${label} end\r\n`;
}
