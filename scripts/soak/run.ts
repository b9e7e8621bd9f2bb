import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Abuser } from './abusers.js';
import { Typist } from './healthy.js';
import { startSoakServer } from './server.js';

export interface SoakOptions {
  readonly durationMs: number;
  readonly healthyClients: number;
  /** SIGTERM must end the server within this. */
  readonly exitDeadlineMs: number;
  /** A healthy keystroke whose echo takes longer than this counts as lost. */
  readonly echoGiveUpMs: number;
  /** Abusers left out by name, to find which one costs what. */
  readonly skip: readonly string[];
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = { durationMs: 2 * 60_000, healthyClients: 4, exitDeadlineMs: 2000, echoGiveUpMs: 5000, skip: [] };

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

const ABUSE_PROCESS = fileURLToPath(new URL('./abuse-process.ts', import.meta.url));

/** The abusers in a child process of their own (see abuse-process.ts); resolves with their tallies. */
function runAbusers(url: string, token: string, durationMs: number, skip: readonly string[]): Promise<AbuserTally[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', ABUSE_PROCESS, url, token, String(durationMs), JSON.stringify(skip)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('[')) return reject(new Error(`the abuse process exited with ${code}: ${out.slice(-500)}`));
      const parsed = JSON.parse(line) as Array<{ name: string; defendedBy: Abuser['defendedBy']; outcomes: Record<string, number> }>;
      resolve(parsed.map((t) => ({ ...t, outcomes: new Map(Object.entries(t.outcomes)) })));
    });
  });
}

/** One server in a child process, the abusers and the healthy typists against it for the duration, then SIGTERM. */
export async function runSoak(options: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const opts = { ...DEFAULT_SOAK_OPTIONS, ...options };
  const server = await startSoakServer();
  try {
    const typists = await Promise.all(Array.from({ length: opts.healthyClients }, (_, i) => Typist.start(server.url, server.token, i)));
    const started = performance.now();
    const until = started + opts.durationMs;
    const abuse = runAbusers(server.url, server.token, opts.durationMs, opts.skip);
    const latencies: number[] = [];
    const typed = await Promise.all(typists.map((t) => t.typeUntil(until, latencies, opts.echoGiveUpMs)));
    const tallies = await abuse;
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
