import { Worker } from 'node:worker_threads';
import { percentile } from '../../lib/percentile.js';
import type { Row } from './row.js';

/**
 * How long requests wait to be read by this thread while `busy` runs: one
 * comes from another thread every `everyMs`, as the host's requests come to
 * the screen worker. The waits in ms, ascending.
 */
export async function requestWaits(busy: () => Promise<void>, everyMs: number): Promise<number[]> {
  const now = () => performance.timeOrigin + performance.now();
  const waits: number[] = [];
  const prober = new Worker(`const { parentPort } = require('node:worker_threads'); setInterval(() => parentPort.postMessage(performance.timeOrigin + performance.now()), ${everyMs});`, { eval: true });
  prober.on('message', (sentAt: number) => waits.push(now() - sentAt));
  await busy();
  await prober.terminate();
  return waits.sort((a, b) => a - b);
}

/** The p50 and p99 rows of `ours` against `theirs`, measured side by side; `note` says theirs at that percentile. */
export function waitRows(section: string, what: string, ours: readonly number[], theirs: readonly number[], baseline: string, note: (theirsMs: number) => string): Row[] {
  return [50, 99].map((p) => {
    const [value, baselineMs] = [percentile(ours, p), percentile(theirs, p)];
    return { section, name: `request wait p${p}, ${what}`, value, unit: 'ms', ratio: baselineMs / value, baseline, note: note(baselineMs) };
  });
}
