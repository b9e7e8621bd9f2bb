import { rmSync } from 'node:fs';

/**
 * Temporary directories the gate is building in. On SIGINT/SIGTERM they are
 * removed before the process exits, so an interrupted run leaves no half-built
 * directory behind (the cache's stamp protocol would redo it, but disk is not free).
 */
const pending = new Set<string>();
const groups = new Set<number>();
let installed = false;

/**
 * Process groups of long commands (npm ci, npm run build). They run detached
 * in their own group so a signal can take down npm AND the scripts it spawned;
 * killing npm alone leaves its children running.
 */
export function trackProcessGroup(pid: number | undefined): () => void {
  if (pid === undefined) return () => undefined;
  groups.add(pid);
  return () => void groups.delete(pid);
}

export function killTrackedProcessGroups(): void {
  for (const pid of groups) {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  groups.clear();
}

export function trackTempDir(dir: string): () => void {
  pending.add(dir);
  return () => void pending.delete(dir);
}

export function removeTrackedTempDirs(): void {
  for (const dir of pending) rmSync(dir, { recursive: true, force: true });
  pending.clear();
}

/** Installs the signal handlers once; exit codes follow the shell convention 128 + signal. */
export function installSignalCleanup(onSignal: (signal: NodeJS.Signals) => void = () => undefined): void {
  if (installed) return;
  installed = true;
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      onSignal(signal);
      killTrackedProcessGroups();
      removeTrackedTempDirs();
      process.exit(code);
    });
  }
}
