/**
 * `npm run bench -- snapshot-fairness`: how long a request waits to be read
 * by the thread that parses the screens while it takes snapshots of a
 * 1000-column screen coloured in every cell, each after a change (so none is
 * the text kept): through the ScreenBook, which serialises a few rows a slice
 * (what the host does), and serialised whole in one task (what it did), side
 * by side. The wait is what another terminal's snapshot or parse waits.
 */
import { ScreenBook, type ScreenReply } from '../../src/host/screen-book.js';
import { serializeScreen } from '../../src/screen/serialize-screen.js';
import { screenTerminals } from '../../src/screen/terminal-pool.js';
import { requestWaits, waitRows } from './lib/request-waits.js';
import type { Row } from './lib/row.js';

export const name = 'snapshot-fairness';

const SHAPE = { cols: 1000, rows: 150, scrollback: 150 } as const;
const SNAPSHOTS = 3;
const PROBE_EVERY_MS = 5;

const output = Array.from({ length: SHAPE.rows + SHAPE.scrollback }, (_, r) => `${Array.from({ length: SHAPE.cols }, (_, c) => `\x1b[3${c % 8};4${(c + r) % 8}mx`).join('')}\x1b[0m\r\n`).join('');

type Serializer = 'sliced' | 'whole';

/** Takes SNAPSHOTS snapshots of the screen, a character written before each; the probes' waits meanwhile, and the snapshot's size. */
async function snapshotWaits(serializer: Serializer): Promise<{ waits: number[]; bytes: number }> {
  let bytes = 0;
  if (serializer === 'whole') {
    const pooled = screenTerminals.take(SHAPE.cols, SHAPE.rows, SHAPE.scrollback);
    await new Promise<void>((resolve) => pooled.term.write(output, resolve));
    const waits = await requestWaits(async () => {
      for (let i = 0; i < SNAPSHOTS; i++) {
        await new Promise<void>((resolve) => pooled.term.write('y', resolve));
        bytes = serializeScreen(pooled, 'wire').length;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }, PROBE_EVERY_MS);
    pooled.term.dispose();
    return { waits, bytes };
  }
  let answered: (reply: Extract<ScreenReply, { kind: 'answer' }>) => void = () => {};
  const book = new ScreenBook((reply) => reply.kind === 'answer' && answered(reply));
  const ask = (want: 'seq' | 'snapshot', token: number) =>
    new Promise<Extract<ScreenReply, { kind: 'answer' }>>((resolve) => {
      answered = resolve;
      book.handle({ op: 'query', id: 1, token, want });
    });
  book.handle({ op: 'open', id: 1, ...SHAPE, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 600_000 });
  book.handle({ op: 'write', id: 1, data: output, seq: output.length });
  await ask('seq', 1);
  const waits = await requestWaits(async () => {
    for (let i = 0; i < SNAPSHOTS; i++) {
      book.handle({ op: 'write', id: 1, data: 'y', seq: output.length + i + 1 });
      bytes = (await ask('snapshot', 2 + i)).text?.length ?? 0;
    }
  }, PROBE_EVERY_MS);
  book.handle({ op: 'dispose', id: 1, token: 100 });
  return { waits, bytes };
}

export async function run(): Promise<Row[]> {
  await snapshotWaits('sliced'); // warm-up
  const whole = await snapshotWaits('whole');
  const sliced = await snapshotWaits('sliced');
  const what = `${SNAPSHOTS} snapshots of ${SHAPE.cols}x${SHAPE.rows} + ${SHAPE.scrollback} coloured`;
  return waitRows(name, what, sliced.waits, whole.waits, 'serialised whole', (theirs) => `whole ${theirs.toFixed(1)} ms (${whole.waits.length} probes; ${sliced.waits.length} sliced; ${(sliced.bytes / 1e6).toFixed(1)} MB each)`);
}
