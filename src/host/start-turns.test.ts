import { describe, expect, it } from 'vitest';
import { StartTurns } from './start-turns.js';

/** StartTurns on turns the test hands out one by one, and a clock it moves. */
function turns(perSecond = 1000) {
  const pending: Array<{ run: () => void; afterMs: number }> = [];
  let now = 0;
  const starts = new StartTurns(perSecond, (run, afterMs) => pending.push({ run, afterMs: now + afterMs }), () => now);
  return {
    starts,
    /** Runs the next turn, moving the clock to the earliest time it may run. */
    nextTurn: () => {
      const turn = pending.shift();
      if (!turn) return;
      now = Math.max(now, turn.afterMs);
      turn.run();
    },
    pendingTurns: () => pending.length,
    now: () => now,
  };
}

describe('StartTurns', () => {
  it('gives one start a turn, and the waiters each a turn of their own in the order they asked', () => {
    const { starts, nextTurn } = turns();
    const log: string[] = [];
    expect(starts.free).toBe(true);
    starts.used();
    expect(starts.free, 'a start already happened this turn').toBe(false);
    for (const who of ['a', 'b', 'c']) starts.wait(() => (log.push(who), starts.used()));
    nextTurn();
    expect(log).toEqual(['a']);
    expect(starts.free, 'b and c still wait').toBe(false);
    nextTurn();
    nextTurn();
    expect(log).toEqual(['a', 'b', 'c']);
    nextTurn();
    expect(starts.free).toBe(true);
  });

  it('passes the turn on from a waiter that started nothing (its connection closed, or its terminal runs by now)', () => {
    const { starts, nextTurn, pendingTurns } = turns();
    const log: string[] = [];
    starts.used();
    starts.wait(() => log.push('gone'));
    starts.wait(() => (log.push('b'), starts.used()));
    nextTurn();
    expect(log).toEqual(['gone', 'b']);
    nextTurn();
    expect(pendingTurns()).toBe(0);
    expect(starts.free).toBe(true);
  });

  it('starts a burst of a quarter second at once, then at most maxTerminalStartsPerSecond, each waiter in turn', () => {
    const { starts, nextTurn, now } = turns(20);
    const startedAt: number[] = [];
    const start = () => (startedAt.push(now()), starts.used());
    for (let i = 0; i < 5; i++) {
      expect(starts.free, `start ${i + 1} of the burst`).toBe(true);
      start();
      nextTurn();
    }
    expect(starts.free, 'the burst is spent').toBe(false);
    for (let i = 5; i < 25; i++) starts.wait(start);
    while (startedAt.length < 25) nextTurn();
    expect(startedAt.slice(0, 5), 'the burst of 5 goes one per turn, without waiting').toEqual([0, 0, 0, 0, 0]);
    expect(startedAt[24]! - startedAt[4]!, '20 more take a second at 20 a second').toBeGreaterThanOrEqual(1000);
    for (let i = 6; i < 25; i++) expect(startedAt[i]! - startedAt[i - 1]!, `start ${i + 1}`).toBeGreaterThanOrEqual(49);
  });
});
