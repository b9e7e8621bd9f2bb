import { rmSync } from 'node:fs';

/**
 * Temporary directories the gate is building in. On SIGINT/SIGTERM they are
 * removed before the process exits, so an interrupted run leaves no half-built
 * directory behind (the cache's stamp protocol would redo it, but disk is not free).
 */
const pending = new Set<string>();
let installed = false;

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
      removeTrackedTempDirs();
      process.exit(code);
    });
  }
}
