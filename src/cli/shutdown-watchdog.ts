import { Worker } from 'node:worker_threads';

/**
 * A deadline that holds even when the main thread cannot run its timers (a
 * flood being parsed, a synchronous write stuck): a worker thread waits on a
 * shared cell and, unless disarmed in time, writes one line to stderr with a
 * direct write and SIGKILLs the process. The main thread's own deadline timer
 * stays the polite path (exit code 1); this is the one that cannot be starved.
 */
export function armShutdownWatchdog(ms: number, why: string): () => void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL('./shutdown-watchdog-thread.js', import.meta.url), { workerData: { cell, ms, why, pid: process.pid }, execArgv: [] });
  // A watchdog that cannot start must not take the shutdown down with it: the main thread's own deadline still holds.
  worker.on('error', (e) => process.stderr.write(`termwire: shutdown watchdog failed: ${e.message}\n`));
  worker.unref();
  return () => {
    Atomics.store(cell, 0, 1);
    Atomics.notify(cell, 0);
  };
}
