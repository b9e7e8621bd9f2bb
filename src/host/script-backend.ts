import { Listeners, type TerminalBackend, type TerminalExit, type Unsubscribe, type WriteOutcome } from './terminal.js';

export interface ScriptBackendOptions {
  /** Written when the first output listener attaches; default 'termwire script terminal\r\n$ '. */
  readonly banner?: string;
  /** Initial size; default 80x24. */
  readonly cols?: number;
  readonly rows?: number;
}

export const SCRIPT_PROMPT = '$ ';
const DEFAULT_BANNER = `termwire script terminal\r\n${SCRIPT_PROMPT}`;
const BACKSPACE = '\x7f';

/**
 * A deterministic terminal without a process: it echoes input like a cooked
 * tty, answers each line with `ran: <line>`, and exits on the line `exit`.
 * Every output chunk is emitted synchronously, so the bytes on the wire are
 * identical run to run (the gate compares them).
 */
export class ScriptBackend implements TerminalBackend {
  private readonly dataListeners = new Listeners<string>();
  private readonly exitListeners = new Listeners<TerminalExit>();
  /** Output produced before anyone listened (the banner), or while paused; handed on by the first onData or by resume(). */
  private pending: string[] = [];
  private paused = false;
  private line = '';
  private log = '';
  private exitInfo: TerminalExit | undefined;
  cols: number;
  rows: number;

  constructor(options: ScriptBackendOptions = {}) {
    this.cols = options.cols ?? 80;
    this.rows = options.rows ?? 24;
    this.emit(options.banner ?? DEFAULT_BANNER);
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Every byte ever written to this terminal, in order: the gate checks input arrived exactly once. */
  inputLog(): string {
    return this.log;
  }

  /** Produces live output on demand (tests and the gate). */
  emit(text: string): void {
    if (text.length === 0) return;
    if (this.dataListeners.size === 0 || this.paused || this.pending.length > 0) this.pending.push(text);
    else this.dataListeners.emit(text);
  }

  /** True while the terminal is not read (pause() until resume()): a script that stands for a fast program waits, as that program would block on its full PTY. */
  get isPaused(): boolean {
    return this.paused;
  }

  /** Holds output until resume(), as a PTY that is not read holds its program's. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.handOnPending();
  }

  write(data: string): WriteOutcome {
    if (this.exited) return 'refused';
    this.log += data;
    let echo = '';
    for (const ch of data) {
      if (ch === '\r' || ch === '\n') {
        const ran = this.line;
        this.line = '';
        if (ran === 'exit') {
          this.emit(`${echo}\r\n`);
          this.finish({ exitCode: 0, signal: null });
          return 'written';
        }
        echo += `\r\nran: ${ran}\r\n${SCRIPT_PROMPT}`;
      } else if (ch === BACKSPACE) {
        if (this.line.length > 0) {
          this.line = [...this.line].slice(0, -1).join('');
          echo += '\b \b';
        }
      } else if (ch >= ' ') {
        this.line += ch;
        echo += ch;
      }
    }
    this.emit(echo);
    return 'written';
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
  }

  onData(cb: (data: string) => void): Unsubscribe {
    const off = this.dataListeners.add(cb);
    this.handOnPending();
    return off;
  }

  /** Hands on held output piece by piece, and stops as soon as a listener pauses it, as a PTY read stops. */
  private handOnPending(): void {
    while (this.pending.length > 0 && !this.paused && this.dataListeners.size > 0) this.dataListeners.emit(this.pending.shift()!);
  }

  onExit(cb: (exit: TerminalExit) => void): Unsubscribe {
    return this.exitListeners.add(cb);
  }

  kill(): void {
    this.finish({ exitCode: null, signal: 15 });
  }

  private finish(exit: TerminalExit): void {
    if (this.exited) return;
    this.paused = false; // a program's output is all read before its exit is
    this.handOnPending();
    this.exitInfo = exit;
    this.exitListeners.emit(exit);
  }
}
