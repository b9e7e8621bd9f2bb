import type { Scheduler } from '../../src/client/options.js';

interface Timer {
  readonly at: number;
  readonly fn: () => void;
}

/** A clock the test moves by hand, so timer-driven behaviour is checked without sleeping. */
export class ManualScheduler implements Scheduler {
  private now = 0;
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  get pending(): number {
    return this.timers.size;
  }

  /** Moves the clock forward, running due timers in time order. */
  advance(ms: number): void {
    const until = this.now + ms;
    for (let due = this.earliest(until); due; due = this.earliest(until)) {
      this.timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = until;
  }

  /** The timer due first by `until`, the earliest set on a tie (the map keeps ids in the order they were set). */
  private earliest(until: number): [number, Timer] | undefined {
    let due: [number, Timer] | undefined;
    for (const entry of this.timers) if (entry[1].at <= until && (!due || entry[1].at < due[1].at)) due = entry;
    return due;
  }
}
