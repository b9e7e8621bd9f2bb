import type { AttachScreenOutput } from './attach-screen.js';

/** Output written in one turn of the event loop before the keys typed meanwhile are read. */
export const TERMINAL_WRITE_BYTES_PER_TURN = 16 * 1024;

type Defer = (task: () => void) => void;

/**
 * Writes to the local terminal a bounded amount per turn of the event loop,
 * so keys are read between writes. Node writes to a terminal synchronously,
 * so while the terminal reads slower than the remote prints (a flood), attach
 * sits inside its writes. Unpaced, one turn relayed everything the socket held
 * and what arrived while writing it (libuv reads a socket up to 32 times a
 * turn, and each write's credit brings more): a Ctrl-C waited 100 ms or more
 * to be read. What waits here is bounded by the host's window, since output's
 * credit goes back only once it is written.
 */
export class TerminalWriter implements AttachScreenOutput {
  private readonly queue: Array<{ readonly text: string; readonly written: (() => void) | undefined }> = [];
  private scheduled = false;
  private direct = false;

  constructor(
    private readonly out: AttachScreenOutput,
    private readonly bytesPerTurn = TERMINAL_WRITE_BYTES_PER_TURN,
    private readonly defer: Defer = (task) => void setImmediate(task),
  ) {}

  get rows(): number | undefined {
    return this.out.rows;
  }

  get columns(): number | undefined {
    return this.out.columns;
  }

  write(text: string, written?: () => void): boolean {
    if (this.direct) {
      this.out.write(text, written);
      return true;
    }
    this.queue.push({ text, written });
    if (!this.scheduled) {
      this.scheduled = true;
      this.defer(() => this.turn());
    }
    return true;
  }

  /** Writes everything queued now, and from then on each write at once: on the way out, before the terminal is put back. */
  writeThrough(): void {
    this.direct = true;
    this.writeQueued(Infinity);
  }

  private turn(): void {
    this.scheduled = false;
    this.writeQueued(this.bytesPerTurn);
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      this.defer(() => this.turn());
    }
  }

  /** Queued texts until `bytes` are written, the one that crosses it included. */
  private writeQueued(bytes: number): void {
    let written = 0;
    while (this.queue.length > 0 && written < bytes) {
      const next = this.queue.shift()!;
      written += next.text.length;
      this.out.write(next.text, next.written);
    }
  }
}
