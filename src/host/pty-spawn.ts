import { existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pty from 'node-pty';

/**
 * How this host starts a terminal's program. node-pty 1.1 forks on Linux
 * (forkpty), on the main thread, at a cost that grows with the host's memory;
 * `npm run build` compiles src/host/native/pty-spawn.c, which starts it with
 * posix_spawn instead, at a cost that does not (see that file). Where it could
 * not be built, or a start needs what it does not do (a uid or gid to switch
 * to), node-pty's own fork runs, as before.
 */
export type PtyStarter = 'posix_spawn' | 'forkpty';

type ExitCallback = (exitCode: number, signal: number) => void;
interface ForkResult {
  readonly fd: number;
  readonly pid: number;
  readonly pty: string;
}
/** node-pty 1.1's native `fork` (src/unix/pty.cc, PtyFork), which its UnixTerminal calls for every start. */
export type NodePtyFork = (
  file: string, args: string[], env: string[], cwd: string, cols: number, rows: number,
  uid: number, gid: number, utf8: boolean, helperPath: string, onExit: ExitCallback,
) => ForkResult;
export interface PtySpawnAddon {
  spawn(path: string, argv0: string, args: string[], env: string[], cwd: string, cols: number, rows: number, utf8: boolean, onExit: ExitCallback): ForkResult;
}

/**
 * The addon as the build writes it, dist/native/, seen from dist/src/host/ (built) or from src/host/ (tests
 * run from source). Literal paths, loaded with process.dlopen: the gate's same-code digest follows them
 * and hashes the addon with the host's code (compat/journey/same-code.ts).
 */
const ADDON_PLACES = [new URL('../../native/pty-spawn.node', import.meta.url), new URL('../../dist/native/pty-spawn.node', import.meta.url)];

/** The built addon, or undefined where it is not built or cannot load. */
export function loadPtySpawnAddon(): PtySpawnAddon | undefined {
  if (process.platform !== 'linux') return undefined;
  const file = ADDON_PLACES.map((place) => fileURLToPath(place)).find((path) => existsSync(path));
  if (file === undefined) return undefined;
  const addon = { exports: {} as PtySpawnAddon };
  try {
    process.dlopen(addon, file);
  } catch {
    return undefined; // built for another system (a copied dist/): node-pty's forkpty still works
  }
  return addon.exports;
}

/** node-pty's native module, the very object its UnixTerminal calls `fork` on (exported as `native`, outside its typings). */
export function nodePtyNative(): { fork: NodePtyFork } {
  return (pty as unknown as { native: { fork: NodePtyFork } }).native;
}

function isExecutableFile(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * The program's path as execvp(3) would find it in the child: through the
 * child's own PATH (glibc's default when it has none), relative entries read
 * from the child's working directory. Undefined when there is none.
 */
export function programPath(file: string, env: readonly string[], cwd: string): string | undefined {
  if (file.includes('/')) return file;
  const pathEntry = env.find((entry) => entry.startsWith('PATH='));
  const searchPath = pathEntry === undefined ? '/bin:/usr/bin' : pathEntry.slice('PATH='.length);
  for (const dir of searchPath.split(delimiter)) {
    const full = join(isAbsolute(dir) ? dir : join(cwd, dir), file);
    if (isExecutableFile(full)) return full;
  }
  return undefined;
}

let installed: PtyStarter | undefined;

/** Starts made by each starter in this process since installPtySpawn. */
export const ptyStarts: Record<PtyStarter, number> = { posix_spawn: 0, forkpty: 0 };

/**
 * Makes node-pty start programs with posix_spawn where the addon is built
 * (once per process); returns which starter this host uses. A start the addon
 * refuses (the program or the directory is not there) goes to node-pty's own
 * fork, so the terminal shows node-pty's message and exits 1 as before.
 */
export function installPtySpawn(): PtyStarter {
  if (installed !== undefined) return installed;
  const addon = loadPtySpawnAddon();
  if (addon === undefined) return (installed = 'forkpty');
  const native = nodePtyNative();
  const forkpty = native.fork;
  native.fork = (file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onExit) => {
    const path = uid === -1 && gid === -1 ? programPath(file, env, cwd) : undefined;
    if (path !== undefined) {
      try {
        const started = addon.spawn(path, file, args, env, cwd, cols, rows, utf8, onExit);
        ptyStarts.posix_spawn += 1;
        return started;
      } catch {
        // Fall through: forkpty reports it in the terminal, as node-pty always has.
      }
    }
    ptyStarts.forkpty += 1;
    return forkpty(file, args, env, cwd, cols, rows, uid, gid, utf8, helperPath, onExit);
  };
  return (installed = 'posix_spawn');
}
