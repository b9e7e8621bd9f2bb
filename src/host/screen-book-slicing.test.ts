import { afterEach, describe, expect, it } from 'vitest';
import { fakeLoop } from '../../test/helpers/fake-loop.js';
import { serializeScreen } from '../screen/serialize-screen.js';
import { type PooledTerminal, screenTerminals } from '../screen/terminal-pool.js';
import { ParseScheduler } from './parse-scheduler.js';
import { SNAPSHOT_NEXT_SLICES, ScreenBook, type ScreenReply, type ScreenRequest } from './screen-book.js';

const BIG = { cols: 100, rows: 20, scrollback: 50 } as const;
const SMALL = { cols: 20, rows: 3, scrollback: 0 } as const;

/** Rows coloured in every cell: each row's text carries the pen of the row before. */
const coloured = (rows: number, cols: number, from = 0) =>
  Array.from({ length: rows }, (_, r) => `${Array.from({ length: cols }, (_, c) => `\x1b[3${c % 8};4${(c + r + from) % 8}m${String.fromCharCode(97 + ((r + from) % 26))}`).join('')}\x1b[0m\r\n`).join('');

const twins: PooledTerminal[] = [];
afterEach(() => {
  for (const twin of twins.splice(0)) screenTerminals.give(twin);
});

/** What the snapshot of a screen that went through `outputs` is, serialised whole on a terminal of its own. */
async function unsliced(shape: { cols: number; rows: number; scrollback: number }, ...outputs: string[]): Promise<string> {
  const twin = screenTerminals.take(shape.cols, shape.rows, shape.scrollback);
  twins.push(twin);
  for (const output of outputs) await new Promise<void>((resolve) => twin.term.write(output, resolve));
  return serializeScreen(twin, 'wire');
}

/**
 * A ScreenBook on a fake loop where every look at the clock costs 1 ms: a
 * 4 ms slice serialises about four rows. Requests are handed in between
 * turns, as the screen worker reads them.
 */
function slicedBook({ msPerLook = 1, takenAwayMsPerLook = 0 } = {}) {
  const loop = fakeLoop({ msPerLook, takenAwayMsPerLook });
  const answers: Array<Extract<ScreenReply, { kind: 'answer' }>> = [];
  /** The last title each screen set: how far a printer got. */
  const titles = new Map<number, string>();
  const book = new ScreenBook((reply) => {
    if (reply.kind === 'answer') answers.push(reply);
    if (reply.kind === 'title') titles.set(reply.id, reply.title);
    if (reply.kind === 'failed') throw new Error(reply.message);
  }, new ParseScheduler(loop.clock));
  let seq = 0;
  const handle = (request: ScreenRequest) => book.handle(request);
  return {
    loop,
    answers,
    titles,
    answer: (token: number) => answers.find((a) => a.token === token || a.also?.includes(token)),
    open: (id: number, shape: { cols: number; rows: number; scrollback: number }) => handle({ op: 'open', id, ...shape, maxLinks: 16, sliceMs: 4, maxBacklogMs: 60_000 }),
    write: (id: number, data: string) => handle({ op: 'write', id, data, seq: (seq += data.length) }),
    snapshot: (id: number, token: number) => handle({ op: 'query', id, token, want: 'snapshot' }),
    resize: (id: number, cols: number, rows: number) => handle({ op: 'resize', id, cols, rows }),
    dispose: (id: number, token: number) => handle({ op: 'dispose', id, token }),
    withdraw: (id: number, token: number) => handle({ op: 'withdraw', id, token }),
    /** Opens screen 1 at BIG and has `output` parsed on it. */
    async bigScreen(output: string): Promise<void> {
      this.open(1, BIG);
      this.write(1, output);
      await this.settle();
    },
    /** Turns of the loop until nothing is deferred; a parse paused at a pause point goes on after a microtask. */
    async settle(): Promise<void> {
      do await Promise.resolve();
      while (loop.drain() > 0);
    },
  };
}

describe('ScreenBook serialising a large snapshot in slices', () => {
  it("answers another terminal's snapshot between two slices of a large one, and the large one is its text serialised whole", async () => {
    const b = slicedBook();
    const output = coloured(40, BIG.cols);
    b.open(1, BIG);
    b.open(2, SMALL);
    b.write(1, output);
    b.write(2, 'small');
    await b.settle();
    b.snapshot(1, 10);
    expect(b.answer(10), 'one slice is not enough for 40 rows').toBeUndefined();
    b.loop.step(); // a second slice of it
    b.snapshot(2, 20); // another terminal's Subscribe comes between two slices
    let turns = 0;
    while (!b.answer(20)) {
      b.loop.step();
      turns++;
    }
    expect(turns, 'the small snapshot waited at most one turn').toBeLessThanOrEqual(1);
    expect(b.answer(10), 'the large one is still being serialised').toBeUndefined();
    let largeTurns = 0;
    for (; !b.answer(10) && largeTurns < 1000; largeTurns++) b.loop.step();
    expect(largeTurns).toBeGreaterThan(3);
    expect(b.answer(10)!.text).toBe(await unsliced(BIG, output));
    expect(b.answer(20)!.text).toBe(await unsliced(SMALL, 'small'));
  });

  it(`answers an idle screen's snapshot that takes a few slices before a printing terminal's next turn, and a large one after ${SNAPSHOT_NEXT_SLICES + 1} slices`, async () => {
    const b = slicedBook();
    const MEDIUM = { cols: 20, rows: 12, scrollback: 0 };
    b.open(1, BIG);
    b.open(2, MEDIUM);
    b.open(3, SMALL);
    b.write(1, coloured(40, BIG.cols));
    b.write(2, coloured(12, MEDIUM.cols));
    await b.settle();
    // A printer: a title naming how far it got before every 4000 characters.
    b.write(3, Array.from({ length: 200 }, (_, k) => `\x1b]0;${k}\x07${'y'.repeat(4000)}`).join(''));
    b.loop.step();
    const turnsUntil = (token: number) => {
      let turns = 0;
      for (; !b.answer(token) && turns < 1000; turns++) b.loop.step();
      return turns;
    };
    let printed = b.titles.get(3);
    b.snapshot(2, 20);
    expect(b.answer(20), 'not done in the slice it had as it came').toBeUndefined();
    expect(turnsUntil(20)).toBeLessThanOrEqual(SNAPSHOT_NEXT_SLICES);
    expect(b.titles.get(3), 'the printer did not move meanwhile').toBe(printed);
    printed = b.titles.get(3);
    b.snapshot(1, 10);
    for (let turn = 0; turn < SNAPSHOT_NEXT_SLICES; turn++) b.loop.step();
    expect(b.titles.get(3), `the printer waited ${SNAPSHOT_NEXT_SLICES} turns`).toBe(printed);
    expect(turnsUntil(10)).toBeGreaterThan(0);
    expect(b.titles.get(3), 'then the printer had its turns').not.toBe(printed);
  });

  it("answers an idle screen's snapshot before a printing terminal's next turn also when a busy machine takes the thread away for most of each slice", async () => {
    // All but a sixteenth of each slice's wall time passes with the thread taken away: a slice serialises a row.
    // Each look at the fake clock costs the CPU of msPerLook, about three looks a turn: a fifth of a slice of work.
    const b = slicedBook({ msPerLook: 0.25, takenAwayMsPerLook: 3.75 });
    const FEW_ROWS = { cols: 20, rows: 5, scrollback: 0 };
    b.open(2, FEW_ROWS);
    b.open(3, SMALL);
    b.write(2, coloured(5, FEW_ROWS.cols));
    await b.settle();
    b.write(3, Array.from({ length: 200 }, (_, k) => `\x1b]0;${k}\x07${'y'.repeat(4000)}`).join(''));
    b.loop.step();
    const printed = b.titles.get(3);
    b.snapshot(2, 20);
    let turns = 0;
    for (; !b.answer(20) && turns < 1000; turns++) b.loop.step();
    expect(turns, 'the snapshot took more turns than it has slices of work').toBeGreaterThan(SNAPSHOT_NEXT_SLICES);
    expect(b.titles.get(3), 'the printer did not move meanwhile').toBe(printed);
    expect(b.answer(20)!.text).toBe(await unsliced(FEW_ROWS, coloured(5, FEW_ROWS.cols)));
  });

  it("holds the terminal's own output while its snapshot is serialised: the snapshot is the screen at one seq", async () => {
    const b = slicedBook();
    const first = coloured(40, BIG.cols);
    const second = coloured(10, BIG.cols, 7);
    await b.bigScreen(first);
    b.snapshot(1, 10);
    b.write(1, second); // output that comes while the snapshot is under way
    b.snapshot(1, 11);
    await b.settle();
    expect(b.answer(10)).toMatchObject({ seq: first.length, text: await unsliced(BIG, first) });
    expect(b.answer(11)).toMatchObject({ seq: first.length + second.length, text: await unsliced(BIG, first, second) });
  });

  it('resizes the screen after a snapshot under way, which keeps the size it was serialised at', async () => {
    const b = slicedBook();
    const output = coloured(40, BIG.cols);
    await b.bigScreen(output);
    b.snapshot(1, 10);
    b.resize(1, 60, 20); // narrower: the rows reflow
    await b.settle();
    expect(b.answer(10)).toMatchObject({ size: { cols: 100, rows: 20 }, text: await unsliced(BIG, output) });
    b.snapshot(1, 11);
    await b.settle();
    expect(b.answer(11)!.size).toEqual({ cols: 60, rows: 20 });
  });

  it('answers the snapshot of an unchanged screen at once from the text kept, without serialising it again', async () => {
    const b = slicedBook();
    await b.bigScreen(coloured(40, BIG.cols));
    b.snapshot(1, 10);
    await b.settle();
    b.snapshot(1, 11); // a Subscribe churn on a screen that did not change
    expect(b.answer(11), 'answered as it came, not in slices').toBeDefined();
    expect(b.answer(11)!.text).toBe(b.answer(10)!.text);
  });

  it('answers snapshots asked for while the screen prints with one serialisation, taken after the last of them was asked, the text crossing once, in the order asked', async () => {
    const b = slicedBook();
    const [first, second, third] = [coloured(40, BIG.cols), coloured(10, BIG.cols, 3), coloured(10, BIG.cols, 5)];
    b.open(1, BIG);
    b.write(1, first);
    b.snapshot(1, 10); // a Subscribe storm on a screen still printing
    b.write(1, second);
    b.snapshot(1, 11);
    b.write(1, third);
    b.snapshot(1, 12);
    await b.settle();
    expect(b.answers.map((a) => [a.token, ...(a.also ?? [])])).toEqual([[10, 11, 12]]);
    expect(b.answers[0]).toMatchObject({ seq: first.length + second.length + third.length, text: await unsliced(BIG, first, second, third) });
  });

  it('takes in the queries of an earlier request once: the request it joined is serialised, whatever came after it', async () => {
    const b = slicedBook();
    const [first, second, third] = [coloured(40, BIG.cols), coloured(10, BIG.cols, 3), coloured(10, BIG.cols, 5)];
    b.open(1, BIG);
    b.write(1, `${first}\x1b]0;first parsed\x07`);
    b.snapshot(1, 10);
    b.write(1, second);
    b.snapshot(1, 11);
    for (let turns = 0; b.titles.get(1) !== 'first parsed' && turns < 1000; turns++) b.loop.step();
    b.loop.step(); // 10 came up and joined 11, the latest then
    b.write(1, third);
    b.snapshot(1, 12);
    await b.settle();
    expect(b.answers.map((a) => [a.token, ...(a.also ?? [])])).toEqual([[10, 11], [12]]);
    expect(b.answer(10)).toMatchObject({ text: await unsliced(BIG, `${first}\x1b]0;first parsed\x07`, second) });
  });

  it('never answers a withdrawn snapshot and abandons its serialisation under way: the output behind it is parsed at once', async () => {
    const b = slicedBook();
    const output = coloured(40, BIG.cols);
    await b.bigScreen(output);
    b.snapshot(1, 10);
    expect(b.answer(10), 'one slice is not enough for 40 rows').toBeUndefined();
    b.withdraw(1, 10); // its stream closed: an Unsubscribe right after the Subscribe
    b.write(1, '\x1b]0;after\x07\x1b[3Jtail');
    b.loop.step();
    expect(b.titles.get(1), 'the output behind it was parsed in the next turn').toBe('after');
    b.snapshot(1, 11);
    // ESC[3J is a pause point: the parse goes on after the pause's microtasks.
    for (let turns = 0; !b.answer(11) && turns < 100; turns++) await b.settle();
    expect(b.answers.map((a) => a.token)).toEqual([11]);
    expect(b.answer(11)!.text).toBe(await unsliced(BIG, output, '\x1b]0;after\x07\x1b[3Jtail'));
  });

  it('drops a withdrawn snapshot waiting behind output without serialising, and answers the others', async () => {
    const b = slicedBook();
    b.open(1, BIG);
    b.write(1, coloured(40, BIG.cols));
    b.snapshot(1, 10);
    b.snapshot(1, 11);
    b.withdraw(1, 11);
    await b.settle();
    expect(b.answers.map((a) => [a.token, ...(a.also ?? [])])).toEqual([[10]]);
  });

  it('answers a snapshot under way before the screen it was asked of is disposed', async () => {
    const b = slicedBook();
    const output = coloured(40, BIG.cols);
    await b.bigScreen(output);
    b.snapshot(1, 10);
    b.dispose(1, 11);
    expect(b.answers.map((a) => a.token)).toEqual([10, 11]);
    expect(b.answer(10)!.text).toBe(await unsliced(BIG, output));
  });
});
