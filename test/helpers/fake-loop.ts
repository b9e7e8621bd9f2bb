import type { ParseSchedulerClock } from '../../src/host/parse-scheduler.js';

/**
 * A clock that moves only when a test says work was done, and a queue of
 * deferred tasks the test runs one at a time: each task is one turn of the
 * event loop, where a request from the host would be read between two of
 * them. `msPerLook`: each look at the clock also moves it, as if the work
 * between two looks (a row serialised, a piece parsed) cost that long.
 */
export function fakeLoop({ msPerLook = 0 }: { readonly msPerLook?: number } = {}) {
  let time = 0;
  const tasks: Array<() => void> = [];
  const look = () => (time += msPerLook);
  const clock: ParseSchedulerClock = { now: look, cpu: look, defer: (task) => void tasks.push(task) };
  return {
    clock,
    work: (ms: number) => (time += ms),
    /** Runs deferred tasks until none is left; returns how many ran. */
    drain(): number {
      let turns = 0;
      for (let task = tasks.shift(); task; task = tasks.shift(), turns++) task();
      return turns;
    },
    /** Runs one turn. */
    step: () => tasks.shift()?.(),
  };
}
