/**
 * `npm run bench -- pty-start`: how long the host's main thread is held by
 * starting one terminal's program, with posix_spawn (what the host does,
 * src/host/native/pty-spawn.c) and with node-pty's forkpty (what it did),
 * side by side, in a host-sized process and in one grown to HEAP_MIB. fork
 * copies the page tables of everything the process holds, so its cost grows
 * with the host; posix_spawn copies nothing. The ratio is forkpty's median
 * over posix_spawn's.
 */
import { closeSync } from 'node:fs';
import { loadPtySpawnAddon, nodePtyNative } from '../../src/host/pty-spawn.js';
import { percentile } from '../lib/percentile.js';
import type { Row } from './lib/row.js';

export const name = 'pty-start';

const STARTS = 30;
const HEAP_MIB = 512;

const addon = loadPtySpawnAddon();
// Read before anything installs the posix_spawn starter over it.
const forkpty = nodePtyNative().fork;

const starters = {
  posix_spawn: () => addon!.spawn('/bin/sh', 'sh', ['-c', 'exit 0'], ['PATH=/usr/bin:/bin'], '/', 80, 24, true, () => {}),
  forkpty: () => forkpty('sh', ['-c', 'exit 0'], ['PATH=/usr/bin:/bin'], '/', 80, 24, -1, -1, true, '', () => {}),
} as const;

/** Milliseconds each of STARTS starts held this thread, ascending; the two starters alternate so load falls on both alike. */
function startTimes(): Record<keyof typeof starters, number[]> {
  const times = { posix_spawn: [] as number[], forkpty: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    for (const starter of ['posix_spawn', 'forkpty'] as const) {
      const before = performance.now();
      const { fd } = starters[starter]();
      times[starter].push(performance.now() - before);
      closeSync(fd);
    }
  }
  for (const list of Object.values(times)) list.sort((a, b) => a - b);
  return times;
}

function row(heap: string, times: Record<keyof typeof starters, number[]>): Row {
  const [ours, theirs] = [percentile(times.posix_spawn, 50), percentile(times.forkpty, 50)];
  const rssMib = process.memoryUsage().rss / 2 ** 20;
  return {
    section: name,
    name: `main thread held per start, median, ${heap} (RSS ${rssMib.toFixed(0)} MiB)`,
    value: ours,
    unit: 'ms',
    ratio: theirs / ours,
    baseline: 'forkpty',
    note: `forkpty ${theirs.toFixed(2)} ms; p99 ${percentile(times.posix_spawn, 99).toFixed(2)} vs ${percentile(times.forkpty, 99).toFixed(2)} ms`,
  };
}

export async function run(): Promise<Row[]> {
  if (addon === undefined) throw new Error('pty-start: dist/native/pty-spawn.node is not built (npm run build says why)');
  const rows = [row('as started', startTimes())];
  const held = Array.from({ length: HEAP_MIB }, () => Buffer.alloc(2 ** 20, 1));
  rows.push(row(`${HEAP_MIB} MiB held`, startTimes()));
  held.length = 0;
  return rows;
}
