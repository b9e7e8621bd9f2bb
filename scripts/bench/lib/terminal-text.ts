import xtermHeadless from '@xterm/headless';
import { LocalScreen } from '../../../src/client/screen.js';

const { Terminal } = xtermHeadless;

const FILLER = 'the quick brown fox jumps over the lazy dog; '.repeat(4);

/** One 80-column log line with a coloured line number, like build or `ls --color` output. ASCII, so chars = bytes. */
export function logLine(i: number): string {
  const at = i % 40;
  return `\u001b[32m${String(i).padStart(6, '0')}\u001b[0m ${FILLER.slice(at, at + 71)}\r\n`;
}

export function logLines(count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += logLine(i);
  return text;
}

/** Exactly `bytes` of terminal output: whole log lines, padded with plain text (no escape is cut). */
export function outputChunk(bytes: number): string {
  let text = '';
  for (let i = 0; text.length + logLine(i).length <= bytes; i++) text += logLine(i);
  return text + FILLER.repeat(Math.ceil(bytes / FILLER.length)).slice(0, bytes - text.length);
}

/** The client's screen as the product drives it (LocalScreen, 80x24, 1000 rows of scrollback); returns seconds until whenIdle. */
export async function parseWithLocalScreen(chunk: string, count: number): Promise<number> {
  const screen = new LocalScreen(80, 24, 1000);
  const start = performance.now();
  for (let i = 0; i < count; i++) screen.write(chunk);
  await screen.whenIdle();
  const seconds = (performance.now() - start) / 1000;
  screen.dispose();
  return seconds;
}

/** The same output handed to one xterm at once, which batches its parsing; returns seconds until the last write's callback. */
export async function parseBatched(chunk: string, count: number): Promise<number> {
  const term = new Terminal({ cols: 80, rows: 24, scrollback: 1000, allowProposedApi: true });
  const start = performance.now();
  await new Promise<void>((resolve) => {
    for (let i = 0; i < count; i++) term.write(chunk, i === count - 1 ? resolve : undefined);
  });
  const seconds = (performance.now() - start) / 1000;
  term.dispose();
  return seconds;
}
