import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name: state first, then
 * ppid, ... (utime and stime are the 12th and 13th). The name may hold spaces
 * and parentheses, so the fields start after its last ')'. Undefined when
 * there is no such process.
 */
export function procStatFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
