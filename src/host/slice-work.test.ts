import { describe, expect, it } from 'vitest';
import type { ParseSlice } from './parse-scheduler.js';
import { SliceWork, WALL_TRUSTED_MS } from './slice-work.js';

/** A slice on clocks the test moves; counts the reads of the CPU clock, a syscall in the host. */
function clocks() {
  let wall = 0;
  let cpu = 0;
  let cpuReads = 0;
  const slice: ParseSlice = {
    over: () => false,
    now: () => wall,
    cpu: () => (cpuReads++, cpu),
  };
  return {
    slice,
    work: (ms: number) => ((wall += ms), (cpu += ms)),
    takenAway: (ms: number) => (wall += ms),
    otherThreads: (ms: number) => (cpu += ms),
    cpuReads: () => cpuReads,
  };
}

describe('SliceWork', () => {
  it('counts fast pieces by the wall clock and reads the CPU once for the slice', () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    let total = 0;
    for (let piece = 0; piece < 100; piece++) {
      const started = cost.start();
      c.work(0.05);
      total += cost.since(started);
    }
    expect(total).toBeCloseTo(5, 6);
    expect(c.cpuReads()).toBe(1);
  });

  it("counts a slow piece's CPU, not the wall time a busy machine took the thread away for, after fast pieces in the same slice", () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    for (let piece = 0; piece < 4; piece++) {
      const started = cost.start();
      c.work(0.25);
      cost.since(started);
    }
    const started = cost.start();
    c.work(0.5);
    c.takenAway(30);
    expect(cost.since(started)).toBeCloseTo(0.5, 6);
    // And the next slow piece is measured from there.
    const next = cost.start();
    c.work(2);
    expect(cost.since(next)).toBeCloseTo(2, 6);
    expect(c.cpuReads()).toBe(3);
  });

  it('counts the wall time of a slow piece while other threads make the process CPU run ahead of it', () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    const started = cost.start();
    c.work(WALL_TRUSTED_MS * 3);
    c.otherThreads(50);
    expect(cost.since(started)).toBeCloseTo(WALL_TRUSTED_MS * 3, 6);
  });
});
