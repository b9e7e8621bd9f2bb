import * as pty from 'node-pty';

/** How long any one step (a prompt, a whole `cat`) may take before the bench gives up. */
const STEP_DEADLINE_MS = 120_000;

/**
 * A program on a real PTY, drained by this process as a terminal would drain
 * it: every chunk is read, and only a short tail is kept to look for a marker.
 * Bytes read are counted, so a trial can say how much went through.
 */
export class PtySession {
  private tail = '';
  private marker: { text: string; found: () => void } | undefined;
  private readBytes = 0;
  private readWaiter: { atLeast: number; reached: () => void } | undefined;
  private readonly exited: Promise<number>;

  constructor(
    private readonly proc: pty.IPty,
    private readonly what: string,
  ) {
    proc.onData((data) => this.onData(data));
    this.exited = new Promise((resolve) => proc.onExit(({ exitCode }) => resolve(exitCode)));
  }

  /** Spawns `file args` on a new 80x24 PTY. */
  static spawn(what: string, file: string, args: readonly string[], env: Readonly<Record<string, string>> = {}): PtySession {
    const fullEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) fullEnv[k] = v;
    Object.assign(fullEnv, env, { TERM: 'xterm-256color' });
    return new PtySession(pty.spawn(file, [...args], { name: 'xterm-256color', cols: 80, rows: 24, cwd: process.cwd(), env: fullEnv }), what);
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** Characters read from the PTY so far. */
  get bytesRead(): number {
    return this.readBytes;
  }

  /**
   * Types `line` (and Enter) and resolves with the ms until `marker` was read
   * back. The marker must not appear in the echo of the line itself.
   */
  async typeUntil(line: string, marker: string): Promise<number> {
    return this.keysUntil(`${line}\r`, marker);
  }

  /** Writes `keys` as they are (no Enter) and resolves with the ms until `marker` was read back: a keystroke's echo. */
  async keysUntil(keys: string, marker: string): Promise<number> {
    this.tail = '';
    const seen = new Promise<void>((found) => (this.marker = { text: marker, found }));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`bench: ${this.what} did not print '${marker}' within ${STEP_DEADLINE_MS} ms; last output: ${JSON.stringify(this.tail)}`)), STEP_DEADLINE_MS);
    });
    const start = performance.now();
    this.proc.write(keys);
    try {
      await Promise.race([seen, deadline, this.exited.then((code) => Promise.reject(new Error(`bench: ${this.what} exited with ${code} before printing '${marker}'`)))]);
    } finally {
      clearTimeout(timer);
      this.marker = undefined;
    }
    return performance.now() - start;
  }

  /** Resolves once `chars` more characters than now were read (a flood that has been running a while). */
  async readMore(chars: number): Promise<void> {
    await new Promise<void>((reached) => (this.readWaiter = { atLeast: this.readBytes + chars, reached }));
  }

  /** Writes raw keys (no Enter). */
  write(keys: string): void {
    this.proc.write(keys);
  }

  async close(): Promise<void> {
    this.proc.kill('SIGKILL');
    await this.exited;
  }

  private onData(data: string): void {
    this.readBytes += data.length;
    if (this.readWaiter && this.readBytes >= this.readWaiter.atLeast) {
      this.readWaiter.reached();
      this.readWaiter = undefined;
    }
    const marker = this.marker;
    if (!marker) return;
    // Only the tail is kept: the marker may straddle two chunks, never more.
    const window = this.tail + data;
    if (window.includes(marker.text)) {
      this.marker = undefined;
      marker.found();
      return;
    }
    this.tail = window.slice(-marker.text.length);
  }
}
