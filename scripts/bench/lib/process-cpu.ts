import { execFileSync } from 'node:child_process';
import { procStatFields } from '../../../test/helpers/proc-stat.js';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** CPU seconds (user + system) process `pid` itself has used so far, all its threads, from /proc; undefined where there is none. */
export function processCpuSeconds(pid: number): number | undefined {
  return cpuSeconds(procStatFields(pid));
}

/** The same for the process's main thread alone (its event loop). */
export function mainThreadCpuSeconds(pid: number): number | undefined {
  return cpuSeconds(procStatFields(pid, pid));
}

function cpuSeconds(fields: string[] | undefined): number | undefined {
  return fields && (Number(fields[11]) + Number(fields[12])) / clockTicks();
}
