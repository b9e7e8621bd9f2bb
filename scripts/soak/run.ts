import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { percentile } from '../lib/percentile.js';
import { ABUSERS, type Abuser } from './abusers.js';
import { Typist } from './healthy.js';
import { startSoakServer } from './server.js';
import { SubscribeProbe } from './subscribe-probe.js';

export interface SoakOptions {
  readonly durationMs: number;
  readonly healthyClients: number;
  /** SIGTERM must end the server within this. */
  readonly exitDeadlineMs: number;
  /** A healthy keystroke whose echo (or a probe's snapshot) takes longer than this counts as lost. */
  readonly echoGiveUpMs: number;
  /** The abusers to run together, by name: the mix of ABUSERS, or one attack. */
  readonly abusers: readonly string[];
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = { durationMs: 2 * 60_000, healthyClients: 4, exitDeadlineMs: 2000, echoGiveUpMs: 5000, abusers: ABUSERS.map((a) => a.name) };

/** A newcomer's outcome (attacks-41.ts) that lost it: refused, or no terminal; not one refused by the server already stopping. */
const LOST_NEWCOMER = /^newcomer (refused|error|got no snapshot)/;

/** The attack goes on this long past the SIGTERM: the exit is timed while the host is attacked. */
const ATTACK_PAST_SIGTERM_MS = 2000;

/** Targets from issues 9 (the mix) and 20 (each attack alone), on 2 cores. */
/**
 * subscribeP99Ms is issue 41's, for a quiet machine (the report prints the
 * load average beside it); a newcomer refused, or answered with an error or
 * nothing, is lost, as a Subscribe probe left unanswered is.
 */
export const SOAK_TARGETS = { mixPeakRssBytes: 256 * 1024 * 1024, attackPeakRssBytes: 512 * 1024 * 1024, healthyP99Ms: 100, subscribeP99Ms: 100, subscribeMaxMs: 2000, exitMs: 2000 } as const;

export interface AbuserTally {
  readonly name: string;
  readonly defendedBy: Abuser['defendedBy'];
  readonly outcomes: ReadonlyMap<string, number>;
}

export interface SoakReport {
  readonly durationMs: number;
  /** The server's RSS once the healthy clients were ready, before any abuse. */
  readonly restRssBytes: number;
  readonly peakRssBytes: number;
  /** Whether the server process was still running when the SIGTERM was sent. */
  readonly survived: boolean;
  readonly echoes: number;
  readonly lostEchoes: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** A newcomer's Subscribe, timed to the end of its snapshot. */
  readonly subscribes: number;
  readonly unansweredSubscribes: number;
  readonly subscribeMaxMs: number;
  readonly subscribeP50Ms: number;
  readonly subscribeP99Ms: number;
  /** Each answered probe's latency, in the order they were sent (where in the run the slow ones fell). */
  readonly subscribeLatenciesMs: readonly number[];
  readonly abusers: readonly AbuserTally[];
  /** New connections an attack's newcomers tried that were refused or got no terminal (attacks-41.ts). */
  readonly lostNewcomers: number;
  /** The machine's 1-minute load average as the attack started and as it ended: a figure is from a quiet machine only where both are low. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  /** How long the server took to exit on SIGTERM; undefined when it did not within exitDeadlineMs. */
  readonly exitMs: number | undefined;
}

/** Whether the report meets every target. */
export function metTargets(r: SoakReport, peakRssTarget: number): boolean {
  return (
    r.survived &&
    r.peakRssBytes < peakRssTarget &&
    r.p99Ms < SOAK_TARGETS.healthyP99Ms &&
    r.unansweredSubscribes === 0 &&
    r.lostNewcomers === 0 &&
    r.subscribeP99Ms < SOAK_TARGETS.subscribeP99Ms &&
    r.subscribeMaxMs < SOAK_TARGETS.subscribeMaxMs &&
    r.exitMs !== undefined &&
    r.exitMs < SOAK_TARGETS.exitMs
  );
}

const ABUSE_PROCESS = fileURLToPath(new URL('./abuse-process.ts', import.meta.url));

/** The abusers in a child process of their own (see abuse-process.ts); resolves with their tallies. */
function runAbusers(url: string, token: string, durationMs: number, names: readonly string[]): Promise<AbuserTally[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', ABUSE_PROCESS, url, token, String(durationMs), JSON.stringify(names)], { stdio: ['ignore', 'pipe', 'inherit'] });
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

/** One server in a child process, the abusers, the healthy typists and the subscribe probe against it for the duration, then SIGTERM while the abuse goes on. */
export async function runSoak(options: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const opts = { ...DEFAULT_SOAK_OPTIONS, ...options };
  const server = await startSoakServer();
  try {
    const typists = await Promise.all(Array.from({ length: opts.healthyClients }, (_, i) => Typist.start(server.url, server.token, i)));
    const probe = await SubscribeProbe.start(server.url, server.token);
    const restRssBytes = server.peakRss();
    const started = performance.now();
    const loadBefore = loadavg()[0]!;
    const until = started + opts.durationMs;
    const abuse = runAbusers(server.url, server.token, opts.durationMs + ATTACK_PAST_SIGTERM_MS, opts.abusers);
    const latencies: number[] = [];
    const [probed, ...typed] = await Promise.all([probe.probeUntil(until, opts.echoGiveUpMs), ...typists.map((t) => t.typeUntil(until, latencies, opts.echoGiveUpMs))]);
    const peakRssBytes = server.peakRss();
    const loadAfter = loadavg()[0]!;
    const survived = server.running();
    const exitMs = await server.terminate(opts.exitDeadlineMs);
    const tallies = await abuse;
    latencies.sort((a, b) => a - b);
    const subscribeLatencies = [...probed!.latencies].sort((a, b) => a - b);
    return {
      durationMs: performance.now() - started,
      restRssBytes,
      peakRssBytes,
      survived,
      echoes: latencies.length,
      lostEchoes: typed.reduce((sum, t) => sum + t.lost, 0),
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      subscribes: probed!.latencies.length,
      unansweredSubscribes: probed!.unanswered,
      subscribeMaxMs: Math.max(0, ...probed!.latencies),
      subscribeP50Ms: percentile(subscribeLatencies, 50),
      subscribeP99Ms: percentile(subscribeLatencies, 99),
      subscribeLatenciesMs: probed!.latencies,
      abusers: tallies,
      lostNewcomers: tallies.reduce((sum, t) => sum + [...t.outcomes].reduce((n, [outcome, count]) => n + (LOST_NEWCOMER.test(outcome) ? count : 0), 0), 0),
      loadAverage: { before: loadBefore, after: loadAfter },
      exitMs,
    };
  } finally {
    await server.terminate(0); // only when something above threw: terminating twice is a no-op
  }
}
