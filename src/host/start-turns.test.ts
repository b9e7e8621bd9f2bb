import { describe, expect, it } from 'vitest';
import { StartTurns } from './start-turns.js';

/** StartTurns on turns the test hands out one by one. */
function turns() {
  const pending: Array<() => void> = [];
  const starts = new StartTurns((run) => pending.push(run));
  return { starts, nextTurn: () => pending.shift()?.(), pendingTurns: () => pending.length };
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
});
