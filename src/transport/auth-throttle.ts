import { networkSource } from './network-source.js';

/** How failed authentications are slowed down and logged; a slice of WsServerOptions. */
export interface AuthThrottleOptions {
  readonly authFailureDelayMs: number;
  readonly authFailureMaxDelayMs: number;
  readonly authFailureForgetMs: number;
  readonly authFailuresPerSecond: number;
  readonly authLogLinesPerMinute: number;
}

interface Failing {
  failures: number;
  lastFailureAt: number;
  /** When the next attempt from here may be judged: attempts are judged one at a time, spaced by the current delay. */
  nextJudgeAt: number;
  /** Attempts given a turn since the last failure: each one waiting doubles the wait, as a failure would, so parallel sockets gain nothing. */
  turns: number;
}

/** Networks remembered at most; the least recently failing is forgotten first. */
const MAX_SOURCES = 10_000;
const MINUTE_MS = 60_000;

/**
 * Guessing is slowed where it happens: before a token is judged. A network
 * (networkSource: an IPv4 /24, an IPv6 /64, all of loopback) that failed
 * recently has its attempts judged one at a time, each after a delay that
 * doubles with every failure up to a ceiling, however many sockets it opens
 * at once: waiting ones stay pending sockets, under the pending cap and the
 * handshake deadline. Over all networks, while any failed recently, at most
 * authFailuresPerSecond attempts are judged per second. A network that stayed
 * quiet for authFailureForgetMs is forgiven. Each failure is logged as one
 * line, at most authLogLinesPerMinute, then one line says how many were left out.
 */
export class AuthThrottle {
  private readonly sources = new Map<string, Failing>();
  private readonly total: Failing = { failures: 0, lastFailureAt: -Infinity, nextJudgeAt: 0, turns: 0 };
  private windowStart = 0;
  private linesInWindow = 0;
  private suppressed = 0;

  constructor(
    private readonly options: AuthThrottleOptions,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** How long an attempt from `address` must wait before its token is judged; reserves its turn. 0 for a network with no recent failure. */
  admit(address: string): number {
    const now = this.now();
    const source = this.recent(networkSource(address), now);
    if (!source) return 0;
    const slot = Math.max(now, source.nextJudgeAt, this.recentTotal(now) ? this.total.nextJudgeAt : 0);
    source.turns++;
    source.nextJudgeAt = slot + this.delayAfter(source.failures + source.turns);
    this.total.nextJudgeAt = slot + 1000 / this.options.authFailuresPerSecond;
    return slot - now;
  }

  /** Records a failed attempt from `address`; returns the delay its network's next attempt waits. */
  failed(address: string, why: string): number {
    const now = this.now();
    const network = networkSource(address);
    const before = this.recent(network, now);
    this.sources.delete(network);
    const failures = (before?.failures ?? 0) + 1;
    const source: Failing = { failures, lastFailureAt: now, nextJudgeAt: Math.max(before?.nextJudgeAt ?? 0, now + this.delayAfter(failures)), turns: Math.max(0, (before?.turns ?? 0) - 1) };
    this.sources.set(network, source);
    if (this.sources.size > MAX_SOURCES) this.sources.delete(this.sources.keys().next().value!);
    this.total.failures++;
    this.total.lastFailureAt = now;
    const delay = this.delayAfter(source.failures);
    this.logLine(now, `termwire: authentication failed from ${address} (${why}); failure ${source.failures} from ${network}, whose next attempt is judged after ${delay}ms`);
    return delay;
  }

  private recent(network: string, now: number): Failing | undefined {
    const source = this.sources.get(network);
    if (source && now - source.lastFailureAt > this.options.authFailureForgetMs) {
      this.sources.delete(network);
      return undefined;
    }
    return source;
  }

  private recentTotal(now: number): boolean {
    return now - this.total.lastFailureAt <= this.options.authFailureForgetMs;
  }

  private delayAfter(failures: number): number {
    return Math.min(this.options.authFailureMaxDelayMs, this.options.authFailureDelayMs * 2 ** Math.min(failures - 1, 30));
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
