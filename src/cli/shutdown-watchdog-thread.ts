import { writeSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

/** The watchdog's thread (see shutdown-watchdog.ts): waits to be armed, then for the deadline; past it, says why and kills the process. */
const { shared, why, pid } = workerData as { shared: SharedArrayBuffer; why: SharedArrayBuffer; pid: number };
const state = new Int32Array(shared, 0, 1);
const deadline = new Float64Array(shared, 8, 1);
const IDLE = 0;
const ARMED = 1;

Atomics.wait(state, 0, IDLE);
if (Atomics.load(state, 0) === ARMED) {
  const left = deadline[0]! - Date.now();
  if (left <= 0 || Atomics.wait(state, 0, ARMED, left) === 'timed-out') {
    const bytes = new Uint8Array(why);
    const reason = new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0) === -1 ? bytes.length : bytes.indexOf(0)));
    // A direct write: stderr through the main thread would wait for the very thread that is stuck.
    writeSync(2, `termwire: ${reason}; the main thread did not finish it: killing the process\n`);
    process.kill(pid, 'SIGKILL');
  }
}
