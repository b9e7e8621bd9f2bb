import type { ParseSlice } from './parse-scheduler.js';

/**
 * Wall time under which a piece of work is counted as it took: a busy
 * machine that took the thread away meanwhile cannot have added more. A
 * piece aims at an eighth of a 4 ms slice (ScreenFeed.adaptPiece); the
 * scheduler takes a thread away for most of a millisecond at least. Also how
 * far apart the CPU is read while pieces come in under it.
 */
export const WALL_TRUSTED_MS = 0.5;

/**
 * What the pieces of work in one slice cost, in ms: their wall time, unless
 * a piece took WALL_TRUSTED_MS or more, when the process CPU used since the
 * last mark (less the wall time from the mark to the piece's start) bounds
 * it, so a busy machine's wait is not counted as work. CPU time counts every
 * thread of the process: while others are busy it runs ahead of the wall,
 * and the wall stands.
 *
 * The CPU is read as the slice begins, after each such piece, and once
 * WALL_TRUSTED_MS have passed since the last read, not around every piece: a
 * read is a syscall of about 1 µs, and around every 4 KiB piece it was a
 * sixth of the screen thread's CPU in a burst. Marks that close together keep
 * what other threads or a preemption did before a slow piece out of its count.
 */
export class SliceWork {
  /** Taken as the first piece starts, the CPU just before. */
  private wallMark: number | undefined;
  private cpuMark: number;

  constructor(private readonly slice: ParseSlice) {
    this.cpuMark = slice.cpu();
  }

  /** Where a piece starts, on the wall clock. */
  start(): number {
    const now = this.slice.now();
    this.wallMark ??= now;
    return now;
  }

  /** What the piece that started at `startedWall` cost. */
  since(startedWall: number): number {
    const now = this.slice.now();
    const wall = now - startedWall;
    const wallMark = this.wallMark ?? startedWall;
    if (wall < WALL_TRUSTED_MS) {
      if (now - wallMark >= WALL_TRUSTED_MS) this.mark(now, this.slice.cpu());
      return wall;
    }
    const cpu = this.slice.cpu();
    const work = Math.min(wall, Math.max(0, cpu - this.cpuMark - (startedWall - wallMark)));
    this.mark(now, cpu);
    return work;
  }

  private mark(wall: number, cpu: number): void {
    this.wallMark = wall;
    this.cpuMark = cpu;
  }
}
