/** How failed authentications are slowed down and logged; a slice of WsServerOptions. */
export interface AuthThrottleOptions {
  readonly authFailureDelayMs: number;
  readonly authFailureMaxDelayMs: number;
  readonly authFailureForgetMs: number;
  readonly authLogLinesPerMinute: number;
}

interface Source {
  failures: number;
  lastFailureAt: number;
}

/** Sources remembered at most; the least recently failing is forgotten first. */
const MAX_SOURCES = 10_000;
const MINUTE_MS = 60_000;

/**
 * Per source address: each failed authentication is answered after a delay
 * that doubles with every failure (up to a ceiling), so guessing runs at a
 * few tries per second instead of thousands; a quiet source is forgiven.
 * Each failure is logged as one line, at most authLogLinesPerMinute, then
 * one line says how many were left out.
 */
export class AuthThrottle {
  private readonly sources = new Map<string, Source>();
  private windowStart = 0;
  private linesInWindow = 0;
  private suppressed = 0;

  constructor(
    private readonly options: AuthThrottleOptions,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a failure from `address` and returns how long to wait before answering it. */
  failed(address: string, why: string): number {
    const now = this.now();
    let source = this.sources.get(address);
    if (source && now - source.lastFailureAt > this.options.authFailureForgetMs) source = undefined;
    this.sources.delete(address);
    source = { failures: (source?.failures ?? 0) + 1, lastFailureAt: now };
    this.sources.set(address, source);
    if (this.sources.size > MAX_SOURCES) this.sources.delete(this.sources.keys().next().value!);
    const delay = Math.min(this.options.authFailureMaxDelayMs, this.options.authFailureDelayMs * 2 ** Math.min(source.failures - 1, 30));
    this.logLine(now, `termwire: authentication failed from ${address} (${why}); failure ${source.failures} from it, answered after ${delay}ms`);
    return delay;
  }

  private logLine(now: number, line: string): void {
    if (now - this.windowStart >= MINUTE_MS) {
      if (this.suppressed > 0) this.log(`termwire: ${this.suppressed} more authentication failures in the last minute not logged`);
      this.windowStart = now;
      this.linesInWindow = 0;
      this.suppressed = 0;
    }
    if (this.linesInWindow < this.options.authLogLinesPerMinute) {
      this.linesInWindow++;
      this.log(line);
    } else {
      this.suppressed++;
    }
  }
}
