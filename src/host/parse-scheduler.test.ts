import { describe, expect, it } from 'vitest';
import { fakeLoop } from '../../test/helpers/fake-loop.js';
import { type ParseJob, ParseScheduler, type ParseSlice } from './parse-scheduler.js';

/** A job of `units` pieces of `unitMs` each, logging each piece it parses under its name. */
function pieceJob(name: string, units: number, unitMs: number, loop: ReturnType<typeof fakeLoop>, log: string[], sliceMs = 4): ParseJob & { left(): number } {
  let left = units;
  return {
    sliceMs,
    left: () => left,
    runSlice(slice: ParseSlice) {
      for (;;) {
        if (left === 0) return 'idle';
        if (slice.over()) return 'more';
        loop.work(unitMs);
        left--;
        log.push(name);
      }
    },
    failed: () => {},
  };
}

describe('ParseScheduler', () => {
  it('serves busy screens round-robin, one slice each per turn of the event loop', () => {
    const loop = fakeLoop();
    const log: string[] = [];
    const scheduler = new ParseScheduler(loop.clock);
    const jobs = ['a', 'b', 'c'].map((name) => pieceJob(name, 8, 1, loop, log));
    for (const job of jobs) scheduler.ready(job);
    const turns = loop.drain();
    // 4 ms slices of 1 ms pieces: a, b, c each parse 4 pieces per turn, in turn.
    expect(log.join('')).toBe('aaaabbbbccccaaaabbbbcccc');
    expect(turns).toBe(6);
  });

  it('lets a request in after at most one slice of another screen, however many screens are busy', () => {
    const loop = fakeLoop();
    const log: string[] = [];
    const scheduler = new ParseScheduler(loop.clock);
    for (let i = 0; i < 60; i++) scheduler.ready(pieceJob(`p${i}`, 1000, 1, loop, log));
    // What another terminal's request sees: the parse work done between two turns of the loop.
    let longest = 0;
    for (let turn = 0; turn < 600; turn++) {
      const before = log.length;
      loop.step();
      longest = Math.max(longest, log.length - before);
    }
    expect(longest).toBe(4); // one 4 ms slice of 1 ms pieces
  });

  it('gives a screen that has just got output its turn after the busy ones already waiting, not after their backlog', () => {
    const loop = fakeLoop();
    const log: string[] = [];
    const scheduler = new ParseScheduler(loop.clock);
    const heavy = pieceJob('h', 1000, 1, loop, log);
    scheduler.ready(heavy);
    loop.step();
    const quiet = pieceJob('q', 1, 1, loop, log);
    scheduler.ready(quiet);
    loop.step();
    loop.step();
    expect(quiet.left()).toBe(0);
    expect(heavy.left()).toBe(1000 - 8);
  });

  it('stops at the end of a slice even when a single piece runs long, and goes on in a later turn', () => {
    const loop = fakeLoop();
    const log: string[] = [];
    const scheduler = new ParseScheduler(loop.clock);
    scheduler.ready(pieceJob('slow', 3, 10, loop, log));
    scheduler.ready(pieceJob('fast', 2, 1, loop, log));
    loop.drain();
    expect(log.join(' ')).toBe('slow fast fast slow slow');
  });

  it('takes a job whose parse paused back into the round once the pause settles, not before', async () => {
    const loop = fakeLoop();
    const scheduler = new ParseScheduler(loop.clock);
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    scheduler.ready({ sliceMs: 4, runSlice: () => (++runs === 1 ? paused : 'idle'), failed: () => {} });
    loop.drain();
    expect(runs).toBe(1);
    release();
    await paused;
    loop.drain();
    expect(runs).toBe(2);
  });

  it('drops a job that threw from the round and tells it, and serves the others', () => {
    const loop = fakeLoop();
    const log: string[] = [];
    const scheduler = new ParseScheduler(loop.clock);
    const failures: unknown[] = [];
    scheduler.ready({
      sliceMs: 4,
      runSlice: () => {
        throw new Error('parse failed');
      },
      failed: (error) => failures.push(error),
    });
    scheduler.ready(pieceJob('ok', 2, 1, loop, log));
    loop.drain();
    expect(failures).toHaveLength(1);
    expect(log).toEqual(['ok', 'ok']);
  });

  it('serves a job removed while it waited no more', () => {
    const loop = fakeLoop();
    const log: string[] = [];
    const scheduler = new ParseScheduler(loop.clock);
    const gone = pieceJob('gone', 8, 1, loop, log);
    scheduler.ready(gone);
    loop.step();
    scheduler.remove(gone);
    loop.drain();
    expect(log).toHaveLength(4);
    expect(gone.left()).toBe(4);
  });
});
