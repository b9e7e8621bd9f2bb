import { MULTIBYTE } from './steps.js';

/** At least `bytes` of screenfuls headed `label`, then a cleared screen with the line `<label> end`. */
export function screenfulsThenMarker(label: string, bytes: number): string {
  const rows = 23; // the 24th row stays empty: a full last row would scroll on the next character
  const filler = [...`.${MULTIBYTE}`];
  const pages: string[] = [];
  for (let page = 0, written = 0; written < bytes; page++) {
    const head = `${label} page ${page} `;
    const columns = [...head];
    while (columns.length < rows * 80) columns.push(filler[columns.length % filler.length]!);
    const text = `\x1b[H${columns.join('')}`;
    pages.push(text);
    written += Buffer.byteLength(text);
  }
  return `${pages.join('')}\x1b[2J\x1b[H${label} end\r\n`;
}
