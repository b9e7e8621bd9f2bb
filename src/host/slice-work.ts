import type { ParseSlice } from './parse-scheduler.js';

/**
 * Wall time under which a piece of work is counted as it took: a busy
 * machine that took the thread away meanwhile cannot have added more.
 * Preemption on Linux is milliseconds long; a piece aims at an eighth of a
 * 4 ms slice.
 */
export const WALL_TRUSTED_MS = 1;

/**
 * What the pieces of work in one slice cost, in ms: their wall time, unless
 * a piece took WALL_TRUSTED_MS or more, when the process CPU used since the
 * slice began (less what its earlier pieces were counted) bounds it, so a
 * busy machine's wait is not counted as work. CPU time counts every thread of
 * the process: while others are busy it runs ahead of the wall, and the wall
 * stands.
 *
 * The CPU is read as the slice begins and after each such piece, not around
 * every piece: a read is a syscall of about 1 µs, and around every 4 KiB
 * piece it was a sixth of the screen thread's CPU in a burst.
 */
export class SliceWork {
  private cpuMark: number;
  private countedSinceMark = 0;

  constructor(private readonly slice: ParseSlice) {
    this.cpuMark = slice.cpu();
  }

  /** Where a piece starts, on the wall clock. */
  start(): number {
    return this.slice.now();
  }

  /** What the piece that started at `startedWall` cost. */
  since(startedWall: number): number {
    const wall = this.slice.now() - startedWall;
    if (wall < WALL_TRUSTED_MS) {
      this.countedSinceMark += wall;
      return wall;
    }
    const cpu = this.slice.cpu();
    const work = Math.min(wall, Math.max(0, cpu - this.cpuMark - this.countedSinceMark));
    this.cpuMark = cpu;
    this.countedSinceMark = 0;
    return work;
  }
}
