import { networkSource } from './network-source.js';

/** How failed authentications are slowed down and logged; a slice of WsServerOptions. */
export interface AuthThrottleOptions {
  readonly authFailureDelayMs: number;
  readonly authFailureMaxDelayMs: number;
  readonly authFailureForgetMs: number;
  readonly authFailuresPerSecond: number;
  readonly authLogLinesPerMinute: number;
  /** An attempt that would wait longer than this is refused at once (it would time out unjudged anyway). */
  readonly handshakeTimeoutMs: number;
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
const SECOND_MS = 1_000;

/** When an attempt may be judged: after `waitMs` (0: now), holding one of its network's turns or not; or never (refused at once, unjudged). */
export type Admission = { readonly waitMs: number; readonly turn: boolean } | 'refuse';

/**
 * Guessing is slowed where it happens: before a token is judged.
 *  - A network (networkSource: an IPv4 /24, an IPv6 /64, a loopback address)
 *    that failed recently has its attempts judged one at a time, each after a
 *    wait that doubles with every failure and every attempt already waiting,
 *    up to authFailureMaxDelayMs; opening many sockets at once gains nothing.
 *  - In total: once more than authFailuresPerSecond failures came in the last
 *    second (a guesser spread over many networks), every attempt, from any
 *    network, waits for a host-wide turn, authFailuresPerSecond of them a second.
 *  - An attempt whose turn is further off than the handshake deadline is
 *    refused at once without being judged (it would time out anyway), so
 *    waiting sockets never pile up.
 * A network that stayed quiet for authFailureForgetMs is forgiven; a network
 * with no recent failure is never held while the total stays under its rate.
 * Each failure is logged as one line, at most authLogLinesPerMinute, then one
 * line says how many were left out.
 */
export class AuthThrottle {
  private readonly sources = new Map<string, Failing>();
  private totalNextJudgeAt = 0;
  private secondStart = 0;
  private failuresThisSecond = 0;
  private failuresLastSecond = 0;
  private windowStart = 0;
  private linesInWindow = 0;
  private suppressed = 0;

  constructor(
    private readonly options: AuthThrottleOptions,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** When an attempt from `address` may have its token judged; reserves its turn. */
  admit(address: string): Admission {
    const now = this.now();
    const source = this.recent(networkSource(address), now);
    const crowded = this.failuresPerSecond(now) > this.options.authFailuresPerSecond;
    if (!source && !crowded) return { waitMs: 0, turn: false };
    const slot = Math.max(now, source?.nextJudgeAt ?? 0, crowded || source ? this.totalNextJudgeAt : 0);
    if (slot - now > this.options.handshakeTimeoutMs) return 'refuse';
    if (source) {
      source.turns++;
      source.nextJudgeAt = slot + this.delayAfter(source.failures + source.turns);
    }
    this.totalNextJudgeAt = slot + SECOND_MS / this.options.authFailuresPerSecond;
    return { waitMs: slot - now, turn: source !== undefined };
  }

  /** An attempt that held a turn ended without failing (its token was right, or its socket closed first): its turn no longer lengthens the wait. */
  release(address: string): void {
    const source = this.sources.get(networkSource(address));
    if (source && source.turns > 0) source.turns--;
  }

  /** Records a failed attempt from `address`; returns the wait its network's next attempt starts from. */
  failed(address: string, why: string): number {
    const now = this.now();
    const network = networkSource(address);
    const before = this.recent(network, now);
    this.sources.delete(network);
    const failures = (before?.failures ?? 0) + 1;
    this.sources.set(network, { failures, lastFailureAt: now, nextJudgeAt: Math.max(before?.nextJudgeAt ?? 0, now + this.delayAfter(failures)), turns: Math.max(0, (before?.turns ?? 0) - 1) });
    if (this.sources.size > MAX_SOURCES) this.sources.delete(this.sources.keys().next().value!);
    this.failuresPerSecond(now);
    this.failuresThisSecond++;
    const delay = this.delayAfter(failures);
    this.logLine(now, `termwire: authentication failed from ${address} (${why}); failure ${failures} from ${network}, whose next attempt is judged after ${delay}ms`);
    return delay;
  }

  /** Failures in the last whole second, or in this one once it has more. */
  private failuresPerSecond(now: number): number {
    if (now - this.secondStart >= SECOND_MS) {
      this.failuresLastSecond = now - this.secondStart < 2 * SECOND_MS ? this.failuresThisSecond : 0;
      this.failuresThisSecond = 0;
      this.secondStart = now;
    }
    return Math.max(this.failuresLastSecond, this.failuresThisSecond);
  }

  private recent(network: string, now: number): Failing | undefined {
    const source = this.sources.get(network);
    if (source && now - source.lastFailureAt > this.options.authFailureForgetMs) {
      this.sources.delete(network);
      return undefined;
    }
    return source;
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
