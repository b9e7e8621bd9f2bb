import { mainThreadCpuMs, sampleProcess } from '../../../compat/journey/progress-deadline.js';

/** CPU seconds (user + system) process `pid` itself has used so far, all its threads, from /proc; undefined where there is none. */
export function processCpuSeconds(pid: number): number | undefined {
  const sample = sampleProcess(pid);
  return sample && sample.cpuMs / 1000;
}

/** The same for the process's main thread alone (its event loop). */
export function mainThreadCpuSeconds(pid: number): number | undefined {
  const ms = mainThreadCpuMs(pid);
  return ms === undefined ? undefined : ms / 1000;
}
