import { write as fdWrite } from 'node:fs';
import { homedir } from 'node:os';
import * as pty from 'node-pty';
import { installPtySpawn } from './pty-spawn.js';
import { readTailAtEnd } from './pty-tail.js';
import { ReadGatherer, type ReadGathererOptions } from './read-gatherer.js';
import { Listeners, type TerminalBackend, type TerminalExit, type Unsubscribe, type WriteOutcome } from './terminal.js';
import { chooseTerm, loginShellArgs } from './terminal-type.js';

export interface PtyBackendOptions {
  /** Program to run; default $SHELL, else bash. */
  readonly command?: string;
  /** Its arguments; default ['--noprofile', '--norc'] when the command is bash, else []. */
  readonly args?: readonly string[];
  /** Extra environment, merged over process.env; TERM is set by `term`. */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory; default the user's home with `login`, else process.cwd(). */
  readonly cwd?: string;
  /** A session as sshd starts one: a login shell (`-l` before `args`, and no bash default arguments) in the user's home. Default false. */
  readonly login?: boolean;
  /** The TERM asked for (a client's): kept when allowed and this host has its terminfo, else xterm-256color (terminal-type.ts). Default xterm-256color. */
  readonly term?: string;
  /** Initial size; default 80x24. */
  readonly cols?: number;
  readonly rows?: number;
  /** How reads are gathered into Output pieces (see ReadGatherer); default 4 ms windows of up to 64 Ki chars. */
  readonly readGather?: ReadGathererOptions;
}

/** node-pty's write queue (CustomWriteStream, node-pty 1.1): input the program has not read yet. */
interface NodePtyWriteStream {
  readonly _fd?: number;
  _writeQueue?: Array<{ buffer: Uint8Array; offset: number }>;
  _writeImmediate?: NodeJS.Immediate;
  _processWriteQueue?: () => void;
  dispose?(): void;
}

/** How often a held terminal looks for its child: well inside node-pty's 200 ms before it frees the PTY of a child that is gone. */
const CHILD_GONE_CHECK_MS = 25;

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A real process in a real PTY (node-pty). */
export class PtyBackend implements TerminalBackend {
  private readonly proc: pty.IPty;
  private readonly dataListeners = new Listeners<string>();
  private readonly exitListeners = new Listeners<TerminalExit>();
  private exitInfo: TerminalExit | undefined;
  private forceKillTimer: NodeJS.Timeout | undefined;
  private readonly reads: ReadGatherer;
  private childWatch: NodeJS.Timeout | undefined;
  private childGone = false;
  /** kill() was called: input is refused from then on (see stopWriting). */
  private killed = false;
  /** Why node-pty's last queued write failed (the program was gone), if one did; never printed (see quietWriteErrors). */
  writeError: string | undefined;
  cols: number;
  rows: number;

  constructor(options: PtyBackendOptions = {}) {
    const command = options.command ?? process.env.SHELL ?? 'bash';
    const args = options.login ? loginShellArgs(command, options.args ?? []) : (options.args ?? (/(^|\/)bash$/.test(command) ? ['--noprofile', '--norc'] : []));
    const term = chooseTerm(options.term);
    this.cols = options.cols ?? 80;
    this.rows = options.rows ?? 24;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    Object.assign(env, options.env, { TERM: term });
    const cwd = options.cwd ?? (options.login ? (env.HOME ?? homedir()) : process.cwd());
    installPtySpawn();
    this.proc = pty.spawn(command, [...args], { name: term, cols: this.cols, rows: this.rows, cwd, env });
    this.quietWriteErrors();
    this.reads = new ReadGatherer((data) => this.dataListeners.emit(data), options.readGather);
    this.proc.onData((data) => this.reads.add(data));
    readTailAtEnd(this.proc, (tail) => this.reads.add(tail));
    this.proc.onExit(({ exitCode, signal }) => {
      clearTimeout(this.forceKillTimer);
      // Input the program never read goes with it: nothing queued toward a PTY outlives its terminal.
      this.writeQueue()?.splice(0);
      this.resume();
      this.reads.flush();
      this.exitInfo = { exitCode, signal: signal ?? null };
      this.exitListeners.emit(this.exitInfo);
    });
  }

  /** The child's process id. */
  get pid(): number {
    return this.proc.pid;
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  write(data: string): WriteOutcome {
    if (this.exited || this.killed) return 'refused';
    try {
      this.proc.write(data);
    } catch {
      // node-pty may have queued part of it before throwing: never safe to resend.
      return 'unknown';
    }
    return 'written';
  }

  /**
   * What node-pty holds of our writes, waiting for the program to read
   * (its write stream queues whatever the kernel's PTY buffer cannot take,
   * without a bound; it has no public size, so its queue is read).
   */
  queuedInputBytes(): number {
    const queue = this.writeQueue();
    return queue ? queue.reduce((sum, task) => sum + task.buffer.length - task.offset, 0) : 0;
  }

  private writeQueue(): Array<{ buffer: Uint8Array; offset: number }> | undefined {
    return this.writeStream()?._writeQueue;
  }

  private writeStream(): NodePtyWriteStream | undefined {
    return (this.proc as unknown as { _writeStream?: NodePtyWriteStream })._writeStream;
  }

  /**
   * node-pty prints `Unhandled pty write error` (console.error) when a queued
   * write meets a PTY whose program is gone (EIO, or EBADF once the fd is
   * closed), then drops its queue: a program that exited with input unread
   * printed it at every such exit. The same loop runs here (node-pty 1.1's
   * CustomWriteStream; left alone if its shape differs) with the error kept
   * in `writeError` instead: the input was never read, and the exit says so.
   */
  private quietWriteErrors(): void {
    const stream = this.writeStream();
    if (!stream || typeof stream._fd !== 'number' || !Array.isArray(stream._writeQueue) || typeof stream._processWriteQueue !== 'function') return;
    const queue = stream._writeQueue;
    const fd = stream._fd;
    const next = (): void => {
      stream._writeImmediate = undefined;
      const task = queue[0];
      if (!task) return;
      fdWrite(fd, task.buffer, task.offset, (error, written) => {
        if (error) {
          if (error.code === 'EAGAIN') stream._writeImmediate = setImmediate(next);
          else {
            queue.length = 0;
            this.writeError = error.code ?? error.message;
          }
          return;
        }
        task.offset += written;
        if (task.offset >= task.buffer.byteLength) queue.shift();
        next();
      });
    };
    stream._processWriteQueue = next;
  }

  /**
   * Input the program never read is dropped when it is killed, and nothing is
   * written after: node-pty retries its queue on every turn, and a retry that
   * met the PTY closed printed `Unhandled pty write error EBADF` to stderr at
   * every shutdown after an input flood.
   */
  private stopWriting(): void {
    this.killed = true;
    this.writeQueue()?.splice(0);
    this.writeStream()?.dispose?.(); // its retry already scheduled
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    if (!this.exited) this.proc.resize(cols, rows);
  }

  /**
   * Stops reading until resume(). node-pty frees the PTY 200 ms after the child
   * is gone whether or not its output was read, so while held the child is
   * looked for every CHILD_GONE_CHECK_MS; once it is gone the rest of its output
   * is read at once and the terminal is never held again.
   */
  pause(): void {
    if (this.exited || this.childGone || this.childWatch) return;
    this.proc.pause();
    this.childWatch = setInterval(() => {
      if (processExists(this.proc.pid)) return;
      this.childGone = true;
      this.resume();
    }, CHILD_GONE_CHECK_MS);
  }

  resume(): void {
    if (!this.childWatch) return;
    clearInterval(this.childWatch);
    this.childWatch = undefined;
    if (!this.exited) this.proc.resume();
  }

  onData(cb: (data: string) => void): Unsubscribe {
    return this.dataListeners.add(cb);
  }

  onExit(cb: (exit: TerminalExit) => void): Unsubscribe {
    return this.exitListeners.add(cb);
  }

  kill(graceMs?: number): void {
    if (this.exited) return;
    this.stopWriting();
    this.signal('SIGHUP');
    // A shell that ignores SIGHUP (trap '' HUP, nohup) must not outlive the host.
    if (graceMs !== undefined && this.forceKillTimer === undefined) {
      this.forceKillTimer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    }
  }

  private signal(name: 'SIGHUP' | 'SIGKILL'): void {
    if (this.exited) return;
    try {
      this.proc.kill(name);
    } catch {
      // Already gone between the check and the kill: the exit event still comes.
    }
  }
}
