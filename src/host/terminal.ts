/**
 * What a write to a terminal came to: 'refused' when the terminal took none of
 * it (it exited), 'unknown' when the bytes may or may not have reached it (the
 * handoff threw): exactly-once input never resends an 'unknown' write.
 */
export type WriteOutcome = 'written' | 'refused' | 'unknown';

export interface TerminalExit {
  readonly exitCode: number | null;
  readonly signal: number | null;
}

export type Unsubscribe = () => void;

/**
 * One terminal the host serves: a real process in a PTY, or the deterministic
 * script terminal. The runtime sees only this, so both feed the same screen,
 * output counting and snapshots.
 */
export interface TerminalBackend {
  /** Sends keystrokes or pasted text to the terminal. */
  write(data: string): WriteOutcome;
  resize(cols: number, rows: number): void;
  /** Output, in order; chunks never split a code point. */
  onData(cb: (data: string) => void): Unsubscribe;
  onExit(cb: (exit: TerminalExit) => void): Unsubscribe;
  /** Stops reading output until resume(): the program then blocks on its writes, as on a slow terminal. A backend without them is never held. */
  pause?(): void;
  resume?(): void;
  /** Input handed to the terminal and not yet taken by it (queued toward a PTY whose program does not read). A backend without it queues nothing. */
  queuedInputBytes?(): number;
  /**
   * Ends the terminal; an exit follows. A process gets SIGHUP, then SIGKILL
   * when it is still running `graceMs` later (default: SIGHUP only). Safe to call twice.
   */
  kill(graceMs?: number): void;
  readonly cols: number;
  readonly rows: number;
  readonly exited: boolean;
}

/** A tiny ordered listener list shared by the backends. */
export class Listeners<T> {
  private readonly list = new Set<(value: T) => void>();
  add(cb: (value: T) => void): Unsubscribe {
    this.list.add(cb);
    return () => this.list.delete(cb);
  }
  emit(value: T): void {
    for (const cb of [...this.list]) cb(value);
  }
  get size(): number {
    return this.list.size;
  }
}
