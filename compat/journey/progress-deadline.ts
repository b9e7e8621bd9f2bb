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

/** The process's CPU time and state from /proc/<pid>/stat, or undefined where there is no /proc (or no process). */
export function sampleProcess(pid: number): ProcessSample | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return { state: fields[0] ?? '?', cpuMs: ((utime + stime) * 1000) / USER_HZ };
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
