import { execFileSync } from 'node:child_process';
import { procStatFields } from './proc-stat.js';
import { waitFor } from './wait-for.js';

/**
 * The one-letter state of a process from /proc/<pid>/stat ('R', 'S', 'Z', ...),
 * or undefined when there is no such process.
 */
export function processState(pid: number): string | undefined {
  return procStatFields(pid)?.[0] || undefined;
}

/**
 * True while a process with this pid is running. A zombie (exited, waiting
 * for its parent to reap it) counts as gone: signal 0 still succeeds on it,
 * and a busy machine can leave it unreaped for a long time.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return processState(pid) !== 'Z';
}

/** Every process with its parent and state, for a failure message. */
export function processTable(): string {
  try {
    return execFileSync('ps', ['-eo', 'pid,ppid,stat,cmd'], { encoding: 'utf8' });
  } catch (e) {
    return `(ps failed: ${(e as Error).message})`;
  }
}

/** Waits until `pid` is gone (a zombie counts as gone); on timeout the error carries its state and the process table. */
export async function waitForExit(pid: number, opts: { what: string; timeoutMs: number }): Promise<void> {
  try {
    await waitFor(() => !isAlive(pid), opts);
  } catch (e) {
    throw new Error(`${(e as Error).message}\npid ${pid} is in state ${processState(pid) ?? '(gone)'}; process table:\n${processTable()}`);
  }
}
