import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { procStatFields } from './proc-stat.js';
import { waitFor } from './wait-for.js';

/**
 * One process, told apart from a later one that reuses its pid: its pid and
 * its start time (field 22 of /proc/<pid>/stat, in clock ticks since boot).
 * pid_max can be as low as 32768, and a busy test run spawns thousands of
 * processes, so a pid alone can name a stranger a few seconds after its owner died.
 */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/** Index of starttime among the fields procStatFields returns (they start at field 3, the state). */
const START_TIME_FIELD = 22 - 3;

/** The one-letter state of a process from /proc/<pid>/stat ('R', 'S', 'Z', ...), or undefined when there is no such process. */
export function processState(pid: number): string | undefined {
  return procStatFields(pid)?.[0] || undefined;
}

/** The identity of the process that has this pid now; undefined when there is none. */
export function processIdentity(pid: number): ProcessIdentity | undefined {
  const startTime = procStatFields(pid)?.[START_TIME_FIELD];
  return startTime === undefined ? undefined : { pid, startTime };
}

/**
 * True while this process is running. A zombie (exited, waiting for its
 * parent to reap it) counts as gone: signal 0 still succeeds on it, and a busy
 * machine can leave it unreaped for a long time. Given an identity, a
 * different process that now holds the pid counts as gone too.
 */
export function isAlive(process_: number | ProcessIdentity): boolean {
  const { pid, startTime } = typeof process_ === 'number' ? { pid: process_, startTime: undefined } : process_;
  const fields = procStatFields(pid);
  if (!fields || fields[0] === 'Z') return false;
  return startTime === undefined || fields[START_TIME_FIELD] === startTime;
}

/** What a process runs, for a failure message: its command line with spaces for NULs. */
function commandLine(pid: number): string {
  try {
    return JSON.stringify(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' '));
  } catch {
    return '(unknown)';
  }
}

/** Every process with its parent and state, for a failure message. */
export function processTable(): string {
  try {
    return execFileSync('ps', ['-eo', 'pid,ppid,stat,cmd'], { encoding: 'utf8' });
  } catch (e) {
    return `(ps failed: ${(e as Error).message})`;
  }
}

/**
 * Waits until the process is gone (a zombie, or a stranger that reused its
 * pid, counts as gone); on timeout the error carries its state and the process table.
 */
export async function waitForExit(process_: number | ProcessIdentity, opts: { what: string; timeoutMs: number }): Promise<void> {
  const pid = typeof process_ === 'number' ? process_ : process_.pid;
  try {
    await waitFor(() => !isAlive(process_), opts);
  } catch (e) {
    const started = typeof process_ === 'number' ? '' : ` (started at tick ${process_.startTime}, now ${processIdentity(pid)?.startTime ?? 'gone'})`;
    throw new Error(`${(e as Error).message}\npid ${pid}${started} is in state ${processState(pid) ?? '(gone)'}, running ${commandLine(pid)}; process table:\n${processTable()}`);
  }
}
