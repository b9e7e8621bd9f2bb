import { ABUSERS, type Abuser } from './abusers.js';
import { Typist } from './healthy.js';
import { startSoakServer } from './server.js';

export interface SoakOptions {
  readonly durationMs: number;
  readonly healthyClients: number;
  /** SIGTERM must end the server within this. */
  readonly exitDeadlineMs: number;
  /** Abusers left out by name, to find which one costs what. */
  readonly skip: readonly string[];
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = { durationMs: 2 * 60_000, healthyClients: 4, exitDeadlineMs: 2000, skip: [] };

/** Targets from issue 9, on 2 cores. */
export const SOAK_TARGETS = { peakRssBytes: 256 * 1024 * 1024, healthyP99Ms: 100, exitMs: 2000 } as const;

export interface AbuserTally {
  readonly name: string;
  readonly defendedBy: Abuser['defendedBy'];
  readonly outcomes: ReadonlyMap<string, number>;
}

export interface SoakReport {
  readonly durationMs: number;
  readonly peakRssBytes: number;
  readonly echoes: number;
  readonly lostEchoes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly abusers: readonly AbuserTally[];
  /** How long the server took to exit on SIGTERM; undefined when it did not within exitDeadlineMs. */
  readonly exitMs: number | undefined;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One server in a child process, the abusers and the healthy typists against it for the duration, then SIGTERM. */
export async function runSoak(options: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const opts = { ...DEFAULT_SOAK_OPTIONS, ...options };
  const server = await startSoakServer();
  try {
    const typists = await Promise.all(Array.from({ length: opts.healthyClients }, (_, i) => Typist.start(server.url, server.token, i)));
    const started = performance.now();
    const until = started + opts.durationMs;
    const abusers = ABUSERS.filter((a) => !opts.skip.includes(a.name));
    const tallies = abusers.map((abuser) => ({ name: abuser.name, defendedBy: abuser.defendedBy, outcomes: new Map<string, number>() }));
    const abuse = abusers.map(async (abuser, i) => {
      const outcomes = tallies[i]!.outcomes;
      const ctx = { url: server.url, token: server.token, until, tally: (o: string) => outcomes.set(o, (outcomes.get(o) ?? 0) + 1) };
      while (performance.now() < until) {
        try {
          await abuser.run(ctx);
        } catch (error) {
          ctx.tally(`abuser failed: ${error instanceof Error ? error.message.slice(0, 60) : String(error)}`);
        }
      }
    });
    const latencies: number[] = [];
    const typed = await Promise.all(typists.map((t) => t.typeUntil(until, latencies)));
    await Promise.all(abuse);
    const peakRssBytes = server.peakRss();
    const exitMs = await server.terminate(opts.exitDeadlineMs);
    latencies.sort((a, b) => a - b);
    return {
      durationMs: performance.now() - started,
      peakRssBytes,
      echoes: latencies.length,
      lostEchoes: typed.reduce((sum, t) => sum + t.lost, 0),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      abusers: tallies,
      exitMs,
    };
  } finally {
    await server.terminate(0); // only when something above threw: terminating twice is a no-op
  }
}
