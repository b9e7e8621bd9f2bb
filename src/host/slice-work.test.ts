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

/** A piece that does `work` ms of the thread's own work, with `around` run meanwhile; what SliceWork counted for it. */
function piece(c: ReturnType<typeof clocks>, cost: SliceWork, work: number, around: () => void = () => {}): number {
  const started = cost.start();
  c.work(work);
  around();
  return cost.since(started);
}

describe('SliceWork', () => {
  it('counts fast pieces by the wall clock and reads the CPU once a WALL_TRUSTED_MS, not once a piece', () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    let total = 0;
    for (let i = 0; i < 100; i++) total += piece(c, cost, 0.05);
    expect(total).toBeCloseTo(5, 6);
    expect(c.cpuReads()).toBeLessThanOrEqual(1 + 5 / WALL_TRUSTED_MS);
  });

  it("counts a slow piece's CPU, not the wall time a busy machine took the thread away for", () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    expect(piece(c, cost, 0.5, () => c.takenAway(30))).toBeCloseTo(0.5, 6);
    expect(piece(c, cost, 2)).toBeCloseTo(2, 6);
  });

  it("leaves out of a slow piece's count what other threads did while earlier fast pieces ran", () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    for (let i = 0; i < 4; i++) piece(c, cost, 0.3, () => c.otherThreads(0.9));
    expect(piece(c, cost, 0.5, () => c.takenAway(4))).toBeCloseTo(0.5, 6);
  });

  it('counts a slow piece its own work after fast pieces the machine took the thread away in', () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    for (let i = 0; i < 4; i++) piece(c, cost, 0.1, () => c.takenAway(WALL_TRUSTED_MS / 2));
    expect(piece(c, cost, 2)).toBeCloseTo(2, 6);
  });

  it('counts the wall time of a slow piece while other threads make the process CPU run ahead of it', () => {
    const c = clocks();
    const cost = new SliceWork(c.slice);
    expect(piece(c, cost, WALL_TRUSTED_MS * 3, () => c.otherThreads(50))).toBeCloseTo(WALL_TRUSTED_MS * 3, 6);
  });
});
