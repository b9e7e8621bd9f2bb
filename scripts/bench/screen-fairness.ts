/**
 * `npm run bench -- screen-fairness`: how long a request waits to be read by
 * the thread that parses the screens while 16 terminals print 2 MiB each,
 * with the screens fed through the ParseScheduler (what the host does) and
 * through xterm's own write buffer (what it did), side by side. The request
 * comes from another thread every 5 ms, as the host's requests come to the
 * screen worker; its wait is what another terminal's snapshot waits before
 * it is taken.
 */
import { ScreenBook } from '../../src/host/screen-book.js';
import { screenTerminals } from '../../src/screen/terminal-pool.js';
import { requestWaits, waitRows } from './lib/request-waits.js';
import type { Row } from './lib/row.js';

export const name = 'screen-fairness';

const PRINTERS = 16;
const WRITES = 32; // of 64 KiB: 2 MiB each
const PROBE_EVERY_MS = 5;

type Feed = 'scheduler' | 'xterm';

/** Feeds every printer its output, then probes until all of it is parsed; the probes' waits in ms, ascending. */
async function probeWaits(feed: Feed): Promise<number[]> {
  const line = 'INFO 2026-12-05T08:00:00Z request handled in 12 ms path=/api/v1/items status=200\r\n';
  const chunk = new TextEncoder().encode(line.repeat(Math.floor(65536 / line.length)));
  let left = PRINTERS;
  let finished!: () => void;
  const allParsed = new Promise<void>((resolve) => (finished = resolve));
  const done = () => --left === 0 && finished();
  const cleanup: Array<() => void> = [];
  if (feed === 'scheduler') {
    const book = new ScreenBook((reply) => reply.kind === 'answer' && reply.token < 1000 && done());
    for (let id = 1; id <= PRINTERS; id++) {
      book.handle({ op: 'open', id, cols: 80, rows: 24, scrollback: 1000, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 60_000 });
      for (let i = 1; i <= WRITES; i++) book.handle({ op: 'write', id, data: chunk, seq: i * chunk.length });
      book.handle({ op: 'query', id, token: id, want: 'seq' });
      cleanup.push(() => book.handle({ op: 'dispose', id, token: 1000 + id }));
    }
  } else {
    for (let id = 1; id <= PRINTERS; id++) {
      const pooled = screenTerminals.take(80, 24, 1000);
      for (let i = 1; i < WRITES; i++) pooled.term.write(chunk);
      pooled.term.write(chunk, done);
      cleanup.push(() => pooled.term.dispose());
    }
  }
  const waits = await requestWaits(() => allParsed, PROBE_EVERY_MS);
  for (const free of cleanup) free();
  return waits;
}

export async function run(): Promise<Row[]> {
  await probeWaits('scheduler'); // warm-up
  const xterm = await probeWaits('xterm');
  const scheduler = await probeWaits('scheduler');
  return waitRows(name, `${PRINTERS} terminals printing 2 MiB each`, scheduler, xterm, "xterm's write buffer", (theirs) => `xterm's write buffer ${theirs.toFixed(1)} ms (${xterm.length} probes; ${scheduler.length} through the scheduler)`);
}
