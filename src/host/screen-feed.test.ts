import { describe, expect, it } from 'vitest';
import { clampParseWork } from '../screen/parse-work-clamp.js';
import { serializeScreen } from '../screen/serialize-screen.js';
import { screenTerminals } from '../screen/terminal-pool.js';
import type { XtermParse } from '../screen/xterm-internals.js';
import { ParseScheduler, type ParseSlice } from './parse-scheduler.js';
import { ScreenBook } from './screen-book.js';
import { PIECE_BYTES, SCROLLED_PAST_LOOK_UNITS, SCROLLED_PAST_WAIT_MS, ScreenFeed } from './screen-feed.js';

/** A slice on a clock the parse moves; over after `sliceMs`. `wait` moves the wall clock alone: the machine took the thread away. */
function fakeSlice(sliceMs: number) {
  let time = 0;
  let cpu = 0;
  let end = sliceMs;
  const slice: ParseSlice = { over: () => time >= end, now: () => time, cpu: () => cpu };
  return { slice, spend: (ms: number) => ((cpu += ms), (time += ms)), wait: (ms: number) => (time += ms), next: () => (end = time + sliceMs) };
}

const noEvents = { parsed: () => {}, changed: () => {}, behind: () => {} };
const idleScheduler = () => new ParseScheduler({ now: () => 0, cpu: () => 0, defer: () => {} });

describe('ScreenFeed', () => {
  it('halves its piece while a piece takes longer than the slice, and grows it back on cheap output', () => {
    const clock = fakeSlice(4);
    let msPerByte = 0.01; // 4 KiB: 41 ms, ten slices
    const pieces: number[] = [];
    const parse: XtermParse = (data) => {
      pieces.push(data.length);
      clock.spend(data.length * msPerByte);
    };
    const feed = new ScreenFeed(parse, 4, 2000, idleScheduler(), noEvents, () => {});
    feed.write(new Uint8Array(64 * 1024), 1);
    for (let i = 0; i < 6; i++, clock.next()) feed.runSlice(clock.slice);
    expect(pieces.slice(0, 6)).toEqual([4096, 2048, 1024, 512, 256, 256]);
    msPerByte = 0.0001;
    pieces.length = 0;
    clock.next();
    feed.runSlice(clock.slice);
    expect(pieces.slice(0, 5)).toEqual([256, 512, 1024, 2048, 4096]);
    expect(Math.max(...pieces)).toBe(PIECE_BYTES.max);
  });

  it('goes on with a paused piece, with the pause’s result, before anything else, and reports the write parsed only then', async () => {
    const calls: Array<[number, boolean | undefined]> = [];
    let pauseNext = true;
    const parse: XtermParse = (data, result) => {
      calls.push([data.length, result]);
      if (!pauseNext) return;
      pauseNext = false;
      return Promise.resolve(true);
    };
    const parsed: number[] = [];
    const feed = new ScreenFeed(parse, 4, 2000, idleScheduler(), { ...noEvents, parsed: (seq) => parsed.push(seq) }, () => {});
    feed.write('abc', 3);
    const barrier: string[] = [];
    expect(feed.whenParsed(() => barrier.push('after abc'))).toBe(true);
    const { slice } = fakeSlice(4);
    const outcome = feed.runSlice(slice);
    expect(outcome).toBeInstanceOf(Promise);
    expect([parsed, barrier, feed.pausedInPiece]).toEqual([[], [], true]);
    await outcome;
    expect(feed.runSlice(slice)).toBe('idle');
    expect(calls).toEqual([
      [3, undefined],
      [3, true],
    ]);
    expect([parsed, barrier, feed.idle]).toEqual([[3], ['after abc'], true]);
  });

  it('refuses output past MAX_QUEUED_UNITS by throwing, which fails its screen alone', () => {
    const feed = new ScreenFeed(() => {}, 4, 2000, idleScheduler(), noEvents, () => {});
    feed.write(new Uint8Array(40_000_000), 1);
    expect(() => feed.write(new Uint8Array(20_000_000), 2)).toThrow(/write data discarded: 60000000 units would wait to be parsed > 50000000/);
  });
});

describe('a screen parsed in slices', () => {
  it('draws what xterm draws when every size-bound sequence pauses it (a slice of 0 ms)', async () => {
    const output = [
      'one\r\ntwo\r\n\x1b[?1049hon the alternate screen\x1b[2J\x1b[3;4Hthere\x1b[?1049l',
      '\x1b[5;20r\x1b[10;1Hregion\x1b[2S\x1b[1T\x1b[3L\x1b[2M\x1b[r',
      '\x1b#8\x1b[12;1H\x1b[1J\x1b[?25l\x1b[?7lno wrap past the end of this rather long line that goes past eighty columns\x1b[?7h\x1b[?25h',
      'y\x1b[5b\x1bcafter a reset\x1b[1;31mred\x1b[0m\r\n',
    ].join('');
    const reference = screenTerminals.take(80, 24, 100);
    clampParseWork(reference.term);
    await new Promise<void>((resolve) => reference.term.write(output, resolve));
    const snapshot = await new Promise<string>((resolve) => {
      const book = new ScreenBook((reply) => reply.kind === 'answer' && reply.token === 1 && resolve(reply.text ?? ''));
      book.handle({ op: 'open', id: 1, cols: 80, rows: 24, scrollback: 100, maxLinks: 16, sliceMs: 0, maxBacklogMs: 2000 });
      // In writes cut mid-sequence, so pieces and pauses fall everywhere.
      for (let at = 0; at < output.length; at += 7) book.handle({ op: 'write', id: 1, data: output.slice(at, at + 7), seq: at + 7 });
      book.handle({ op: 'query', id: 1, token: 1, want: 'snapshot' });
    });
    expect(snapshot).toBe(serializeScreen(reference, 'wire'));
    reference.term.dispose();
  });
});

describe('ScreenFeed measuring its backlog in work', () => {
  it('reports the screen behind once its queue would take over maxBacklogMs at its measured pace, and caught up under half of it', () => {
    const clock = fakeSlice(4);
    const parse: XtermParse = (data) => void clock.spend(data.length * 0.001); // 1 ms per KB: a costly screen
    const reports: Array<[boolean, number]> = [];
    const feed = new ScreenFeed(parse, 4, 100, idleScheduler(), { ...noEvents, behind: (behind, ms) => reports.push([behind, Math.round(ms)]) }, () => {});
    feed.write(new Uint8Array(150_000), 1); // nothing measured yet: no estimate
    expect(reports).toEqual([]);
    feed.runSlice(clock.slice); // one 4096-byte piece measured: 1 µs a byte
    expect(reports).toEqual([[true, 146]]);
    for (let i = 0; i < 30 && reports.length === 1; i++, clock.next()) feed.runSlice(clock.slice);
    expect(reports[1]?.[0]).toBe(false);
    expect(reports[1]![1]).toBeLessThanOrEqual(50);
  });

  /** Parses everything written, however many slices it takes. */
  function parseAll(feed: ScreenFeed, clock: ReturnType<typeof fakeSlice>): void {
    for (let i = 0; i < 10_000 && !feed.idle; i++, clock.next()) feed.runSlice(clock.slice);
    expect(feed.idle).toBe(true);
  }
  const cheapMsPerByte = 0.0001; // about 10 MB/s, xterm's pace on plain text

  it('weighs its pace by units, not pieces: a short first write that parsed slowly (a cold parser) does not set the pace of the large write after it', () => {
    const clock = fakeSlice(4);
    let first = true;
    const parse: XtermParse = (data) => void clock.spend(first ? ((first = false), 5) : data.length * cheapMsPerByte); // 5 ms for a 20-byte banner
    const reports: boolean[] = [];
    const feed = new ScreenFeed(parse, 4, 2000, idleScheduler(), { ...noEvents, behind: (behind) => reports.push(behind) }, () => {});
    feed.write('welcome to the host\n', 20);
    parseAll(feed, clock);
    for (let i = 1; i <= 8; i++) {
      feed.write(`${'y'.repeat(60 * 1024)}\r\n`, 20 + i * (60 * 1024 + 2));
      parseAll(feed, clock);
    }
    expect(reports).toEqual([]);
  });

  it('counts what a piece cost in CPU, not the wall time a busy machine added while it waited', () => {
    const clock = fakeSlice(4);
    let pieces = 0;
    const parse: XtermParse = (data) => {
      clock.spend(data.length * cheapMsPerByte);
      if (++pieces % 10 === 0) clock.wait(2000); // descheduled for 2 s, every tenth piece
    };
    const reports: boolean[] = [];
    const feed = new ScreenFeed(parse, 4, 2000, idleScheduler(), { ...noEvents, behind: (behind) => reports.push(behind) }, () => {});
    for (let i = 1; i <= 8; i++) {
      feed.write(new Uint8Array(60 * 1024), i);
      parseAll(feed, clock);
    }
    expect(pieces).toBeGreaterThan(100);
    expect(reports).toEqual([]);
  });
});

describe('ScreenFeed leaving unparsed what its screen would only scroll out', () => {
  it('parses only what the screen keeps of a flood, reports each write it left parsed, and reads no further than a query', () => {
    const parsedUnits: number[] = [];
    const parsed: number[] = [];
    const shown: number[] = [];
    // Of what it is shown, the screen keeps the last 100 units.
    const keepLast100 = {
      ready: () => true,
      look: (queued: Iterable<string | Uint8Array>, offset: number) => {
        const chunks = [...queued];
        shown.push(chunks.length);
        const plain = chunks.reduce((sum, chunk) => sum + chunk.length, 0) - offset;
        return { skip: Math.max(0, plain - 100), plain, open: true };
      },
    };
    let wall = 0;
    const feed = new ScreenFeed((data) => void parsedUnits.push(data.length), 4, 2000, new ParseScheduler({ now: () => wall, cpu: () => 0, defer: () => {} }), { ...noEvents, parsed: (seq) => parsed.push(seq) }, () => {}, keepLast100);
    const chunk = SCROLLED_PAST_LOOK_UNITS / 2;
    for (let i = 1; i <= 3; i++) feed.write(new Uint8Array(chunk), i);
    const order: string[] = [];
    feed.whenParsed(() => order.push(`query after ${parsed.at(-1)}`));
    feed.write(new Uint8Array(chunk), 4);
    const { slice } = fakeSlice(4);
    // The last write is the tail of a flood, which waits SCROLLED_PAST_WAIT_MS for more before it is parsed.
    for (; !feed.idle; wall++) feed.runSlice(slice);
    expect(shown[0]).toBe(3);
    expect(parsedUnits.slice(0, 1)).toEqual([100]);
    expect(parsed).toEqual([1, 2, 3, 4]);
    expect(order).toEqual(['query after 3']);
  });

  it('leaves the tail of a plain flood unparsed while more may come, parses it at once for a query, and on its own once the flood stopped', () => {
    const parsedUnits: number[] = [];
    const plainToTheEnd = { ready: () => true, look: (queued: Iterable<string | Uint8Array>, offset: number) => ({ skip: 0, plain: [...queued].reduce((sum, chunk) => sum + chunk.length, 0) - offset, open: true }) };
    let wall = 0;
    const feed = new ScreenFeed((data) => void parsedUnits.push(data.length), 4, 2000, new ParseScheduler({ now: () => wall, cpu: () => 0, defer: () => {} }), noEvents, () => {}, plainToTheEnd);
    const { slice } = fakeSlice(4);
    feed.write(new Uint8Array(SCROLLED_PAST_LOOK_UNITS), 1);
    expect(feed.runSlice(slice)).toBe('idle');
    expect(parsedUnits).toEqual([]);
    const answered: string[] = [];
    feed.whenParsed(() => answered.push('query'));
    // One slice: a 4 KiB piece at a time, within it.
    expect(feed.runSlice(slice)).toBe('idle');
    expect([parsedUnits.reduce((a, b) => a + b, 0), answered]).toEqual([SCROLLED_PAST_LOOK_UNITS, ['query']]);

    feed.write(new Uint8Array(SCROLLED_PAST_LOOK_UNITS), 2);
    expect(feed.runSlice(slice)).toBe('idle');
    wall += SCROLLED_PAST_WAIT_MS - 1;
    expect(feed.runSlice(slice)).toBe('idle');
    expect(feed.idle).toBe(false);
    // No query: once SCROLLED_PAST_WAIT_MS have passed since the write, the next slice parses it.
    wall += 1;
    feed.runSlice(slice);
    expect(feed.idle).toBe(true);
    feed.drop();
  });

  it('does not look while less than SCROLLED_PAST_LOOK_UNITS is queued', () => {
    let looks = 0;
    const feed = new ScreenFeed(() => {}, 4, 2000, idleScheduler(), noEvents, () => {}, { ready: () => true, look: () => (looks++, { skip: 0, plain: 0, open: false }) });
    feed.write(new Uint8Array(SCROLLED_PAST_LOOK_UNITS - 1), 1);
    feed.runSlice(fakeSlice(4).slice);
    expect([looks, feed.idle]).toEqual([0, true]);
  });
});

describe('a screen that leaves a flood of plain text unparsed where it would only scroll out', () => {
  it('answers a snapshot with the text of one that parsed it all', async () => {
    const flood = Array.from({ length: 5000 }, (_, i) => `build step ${i} ${'.'.repeat(i % 90)}\r\n`).join('');
    const output = `\x1b[1;32mgreen\x1b[5;1H${flood}\x1b[0mdone`;
    const reference = screenTerminals.take(80, 24, 100);
    await new Promise<void>((resolve) => reference.term.write(output, resolve));
    const snapshot = await new Promise<string>((resolve) => {
      const book = new ScreenBook((reply) => reply.kind === 'answer' && reply.token === 1 && resolve(reply.text ?? ''));
      book.handle({ op: 'open', id: 1, cols: 80, rows: 24, scrollback: 100, maxLinks: 16, sliceMs: 4, maxBacklogMs: 2000 });
      const bytes = new TextEncoder().encode(output);
      for (let at = 0; at < bytes.length; at += 4096) book.handle({ op: 'write', id: 1, data: bytes.subarray(at, at + 4096), seq: Math.min(bytes.length, at + 4096) });
      book.handle({ op: 'query', id: 1, token: 1, want: 'snapshot' });
    });
    expect(snapshot).toBe(serializeScreen(reference, 'wire'));
    reference.term.dispose();
  });
});
