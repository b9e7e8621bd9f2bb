import { writeSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

/** The watchdog's thread (see shutdown-watchdog.ts): waits on the shared cell; at the deadline, says why and kills the process. */
const { cell, ms, why, pid } = workerData as { cell: Int32Array; ms: number; why: string; pid: number };
if (Atomics.wait(cell, 0, 0, ms) === 'timed-out') {
  // A direct write: stderr through the main thread would wait for the very thread that is stuck.
  writeSync(2, `termwire: ${why}; the main thread did not finish it: killing the process\n`);
  process.kill(pid, 'SIGKILL');
}
