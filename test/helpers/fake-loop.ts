import type { ParseSchedulerClock } from '../../src/host/parse-scheduler.js';

/**
 * A clock that moves only when a test says work was done, and a queue of
 * deferred tasks the test runs one at a time: each task is one turn of the
 * event loop, where a request from the host would be read between two of
 * them. `msPerLook`: each look at the wall clock also moves both clocks, as
 * if the work since the last look (a row serialised, a piece parsed) cost
 * that long; reading the CPU clock does not. `takenAwayMsPerLook`: wall time
 * that also passes per look while the process does no work, as on a busy
 * machine that takes the thread away.
 */
export function fakeLoop({ msPerLook = 0, takenAwayMsPerLook = 0 }: { readonly msPerLook?: number; readonly takenAwayMsPerLook?: number } = {}) {
  let wall = 0;
  let cpu = 0;
  const tasks: Array<() => void> = [];
  const clock: ParseSchedulerClock = {
    now: () => {
      wall += msPerLook + takenAwayMsPerLook;
      cpu += msPerLook;
      return wall;
    },
    cpu: () => cpu,
    defer: (task) => void tasks.push(task),
  };
  return {
    clock,
    work: (ms: number) => {
      wall += ms;
      cpu += ms;
    },
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
