import { readFileSync } from 'node:fs';

/**
 * A deadline for a child process that counts its own progress, not the
 * clock: on a loaded machine a peer waiting for a core is slow, not broken,
 * and a wall-clock deadline would turn that into "could not compare". It
 * expires when the process has burnt `cpuBudgetMs` of CPU (busy, never
 * arriving), or has sat asleep without using any CPU for `idleMs` (waiting on
 * something that will not come). Time spent runnable but starved counts for
 * neither. Where /proc is absent it falls back to `idleMs` of wall time.
 */
export interface ProgressDeadlineLimits {
  readonly cpuBudgetMs: number;
  readonly idleMs: number;
}

export interface ProcessSample {
  /** User + system CPU time, ms. */
  readonly cpuMs: number;
  /** The kernel's state letter: R runnable, S sleeping, D disk wait, Z zombie, ... */
  readonly state: string;
}

/** Clock ticks per second of /proc's CPU times: USER_HZ, 100 on every Linux Node runs on. */
const USER_HZ = 100;

/** The fields of /proc/<pid>/stat (or of one of its threads) after the command name (which may hold spaces and parentheses), or undefined where there is no /proc (or no process). */
function statFields(pid: number, thread?: number): string[] | undefined {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Clock ticks, summed over fields at these indexes after the command name, in ms; undefined when one is missing. */
function ticksMs(fields: readonly string[], at: readonly number[]): number | undefined {
  const ticks = at.reduce((sum, i) => sum + Number(fields[i]), 0);
  return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : undefined;
}

/** The process's CPU time and state from /proc/<pid>/stat, or undefined where there is no /proc (or no process). */
export function sampleProcess(pid: number): ProcessSample | undefined {
  const fields = statFields(pid);
  // utime and stime.
  const cpuMs = fields && ticksMs(fields, [11, 12]);
  return cpuMs === undefined ? undefined : { state: fields![0] ?? '?', cpuMs };
}

/** User and system CPU of a process and of the children it has waited for (utime, stime, cutime, cstime), in ms; undefined without /proc. */
export function processTreeCpuMs(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields && ticksMs(fields, [11, 12, 13, 14]);
}

/** User and system CPU of a process's main thread alone (where Node runs its event loop), in ms; undefined without /proc. */
export function mainThreadCpuMs(pid: number): number | undefined {
  const fields = statFields(pid, pid);
  return fields && ticksMs(fields, [11, 12]);
}

/** CPU of the children a process has waited for (cutime, cstime), in ms; undefined without /proc. */
export function waitedChildrenCpuMs(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields && ticksMs(fields, [13, 14]);
}

export type DeadlineVerdict = { readonly expired: false } | { readonly expired: true; readonly why: string };

/** Decides, sample by sample, whether a process has had its chance. Pure: the clock and the samples come in. */
export class ProgressDeadline {
  private lastCpuMs = -1;
  private progressAt: number;

  constructor(
    private readonly limits: ProgressDeadlineLimits,
    private readonly startedAt: number,
  ) {
    this.progressAt = startedAt;
  }

  check(now: number, sample: ProcessSample | undefined): DeadlineVerdict {
    if (sample === undefined) {
      const waited = now - this.startedAt;
      return waited > this.limits.idleMs ? { expired: true, why: `${waited} ms passed (no /proc to tell a busy machine from a stuck peer)` } : { expired: false };
    }
    if (sample.cpuMs > this.limits.cpuBudgetMs) return { expired: true, why: `it used ${Math.round(sample.cpuMs)} ms of CPU (budget ${this.limits.cpuBudgetMs} ms)` };
    const moving = sample.cpuMs > this.lastCpuMs || sample.state === 'R' || sample.state === 'D';
    this.lastCpuMs = Math.max(this.lastCpuMs, sample.cpuMs);
    if (moving) this.progressAt = now;
    const idle = now - this.progressAt;
    return idle > this.limits.idleMs ? { expired: true, why: `it sat idle, using no CPU, for ${idle} ms (limit ${this.limits.idleMs} ms)` } : { expired: false };
  }
}
