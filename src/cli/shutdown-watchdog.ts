import { Worker } from 'node:worker_threads';

/** Cell states, shared with the watchdog thread. */
export const WATCHDOG_IDLE = 0;
export const WATCHDOG_ARMED = 1;
export const WATCHDOG_DISARMED = 2;

export interface ShutdownWatchdog {
  /** From now, the process has `ms` to finish shutting down; past it the thread kills it, whatever the main thread is doing. */
  arm(ms: number, why: string): void;
  /** Shutdown finished: the thread ends without a word. */
  disarm(): void;
}

/**
 * A deadline that holds even when the main thread cannot run its timers (a
 * flood being parsed, a synchronous write stuck). The thread is started
 * ahead, at startup, so arming it at the signal costs nothing and adds no
 * start-up time to the deadline: the main thread writes the absolute deadline
 * into shared memory and the thread, which waits on it, writes one line to
 * stderr with a direct write and SIGKILLs the process when it passes. The
 * deadline counts from when the signal's handler runs: Node delivers signals
 * to the main thread only.
 */
export function startShutdownWatchdog(): ShutdownWatchdog {
  const shared = new SharedArrayBuffer(16);
  const state = new Int32Array(shared, 0, 1);
  const deadline = new Float64Array(shared, 8, 1);
  const why = new SharedArrayBuffer(512);
  const worker = new Worker(new URL('./shutdown-watchdog-thread.js', import.meta.url), { workerData: { shared, why, pid: process.pid }, execArgv: [] });
  // A watchdog that cannot start must not take serve down: the main thread's own deadline still holds.
  worker.on('error', (e) => process.stderr.write(`termwire: shutdown watchdog failed: ${e.message}\n`));
  worker.unref();
  const set = (value: number) => {
    Atomics.store(state, 0, value);
    Atomics.notify(state, 0);
  };
  return {
    arm(ms, reason) {
      new Uint8Array(why).set(new TextEncoder().encode(reason).subarray(0, why.byteLength - 1));
      deadline[0] = Date.now() + ms;
      set(WATCHDOG_ARMED);
    },
    disarm: () => set(WATCHDOG_DISARMED),
  };
}

/** Arms a watchdog at once: for callers with no startup to start it at (tests, one-shot tools). */
export function armShutdownWatchdog(ms: number, why: string): () => void {
  const watchdog = startShutdownWatchdog();
  watchdog.arm(ms, why);
  return () => watchdog.disarm();
}
