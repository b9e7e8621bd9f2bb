import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name: state first, then
 * ppid, ... (utime and stime are the 12th and 13th, summed over every thread).
 * With `tid`, the fields of that one thread (/proc/<pid>/task/<tid>/stat). The
 * name may hold spaces and parentheses, so the fields start after its last
 * ')'. Undefined when there is no such process.
 */
export function procStatFields(pid: number, tid?: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
