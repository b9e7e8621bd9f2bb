/**
 * `npm run bench -- parse-work`: what ten bytes of a counted CSI sequence
 * cost the screen worker, with the clamp (src/screen/parse-work-clamp.ts)
 * and without it, side by side, against the same bytes of plain text. The
 * counts are 999,999: 2,147,483,647 without the clamp does not finish.
 */
import { ScreenBook } from '../../src/host/screen-book.js';
import { clampParseWork } from '../../src/screen/parse-work-clamp.js';
import { screenTerminals } from '../../src/screen/terminal-pool.js';
import type { Row } from './lib/row.js';

export const name = 'parse-work';

const ATTACKS = ['y\x1b[999999b', 'y\x1b[999999S', 'y\x1b[999999L', 'y\x1b[999999Z'];

async function parseMs(data: string, clamped: boolean): Promise<number> {
  const pooled = screenTerminals.take(80, 24, 1000);
  const clamp = clamped ? clampParseWork(pooled.term) : undefined;
  // Warmed up on the same sequence with a count of 1, so the figure is the count's cost alone.
  await new Promise<void>((resolve) => pooled.term.write(data.replace(/\d+/, '1'), resolve));
  const started = performance.now();
  await new Promise<void>((resolve) => pooled.term.write(data, resolve));
  const ms = performance.now() - started;
  clamp?.dispose();
  pooled.term.dispose();
  return ms;
}

/** 8 MiB of log lines in 64 KiB writes, as the host hands them on: through a bare terminal, or through the ScreenBook (clamps, link cap, pause points, 4 KiB pieces, and the lines it would only scroll out left unparsed: src/screen/scrolled-past.ts). */
async function logThroughputMs(throughBook: boolean): Promise<number> {
  const line = 'INFO 2026-12-05T08:00:00Z request handled in 12 ms path=/api/v1/items status=200\r\n';
  const chunk = new TextEncoder().encode(line.repeat(Math.floor(65536 / line.length)));
  const writes = Math.ceil((8 * 1024 * 1024) / chunk.length);
  const started = performance.now();
  if (throughBook) {
    await new Promise<void>((resolve) => {
      const book = new ScreenBook((reply) => reply.kind === 'answer' && resolve());
      book.handle({ op: 'open', id: 1, cols: 80, rows: 24, scrollback: 1000, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
      for (let i = 1; i <= writes; i++) book.handle({ op: 'write', id: 1, data: chunk, seq: i * chunk.length });
      book.handle({ op: 'query', id: 1, token: 1, want: 'seq' });
    });
  } else {
    const pooled = screenTerminals.take(80, 24, 1000);
    for (let i = 1; i < writes; i++) pooled.term.write(chunk);
    await new Promise<void>((resolve) => pooled.term.write(chunk, resolve));
    pooled.term.dispose();
  }
  return performance.now() - started;
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  await logThroughputMs(false); // warm-up
  const bare = await logThroughputMs(false);
  const book = await logThroughputMs(true);
  rows.push({ section: name, name: '8 MiB of log lines at 80x24 through the host screen', value: book, unit: 'ms', ratio: bare / book, baseline: 'bare xterm', note: `bare xterm ${bare.toFixed(0)} ms: the guards' cost on ordinary output, less the lines the screen leaves unparsed as only scrolled out` });
  for (const attack of ATTACKS) {
    const plain = await parseMs('y'.repeat(attack.length), true);
    const without = await parseMs(attack, false);
    const withClamp = await parseMs(attack, true);
    const label = JSON.stringify(attack).replace('\\u001b', 'ESC');
    rows.push({ section: name, name: `${label} at 80x24, clamped`, value: withClamp, unit: 'ms', ratio: without / withClamp, baseline: 'unclamped', note: `unclamped ${without.toFixed(1)} ms, plain text of the same length ${plain.toFixed(2)} ms` });
  }
  return rows;
}
