import { spawnSync } from 'node:child_process';

/**
 * The remote PTY's line discipline has already done the output processing
 * (ONLCR turning LF into CR LF, and the like) on everything attach relays, or
 * deliberately not done it: a full-screen program that switched ONLCR off
 * moves the cursor down with a bare LF. The local terminal must therefore pass
 * output through untouched, as ssh and tmux do: attach switches its output
 * processing (OPOST) off, and puts the saved settings back on the way out.
 * Node has no termios call, so this goes through `stty` on the terminal's fd.
 *
 * Returns the restore, or undefined when `fd` is not a terminal `stty` can
 * change (the old behaviour, processed output, then goes on).
 */
export function passOutputThrough(fd: number): (() => void) | undefined {
  const saved = stty(fd, ['-g']);
  if (saved === undefined || stty(fd, ['-opost']) === undefined) return undefined;
  return () => void stty(fd, [saved.trim()]);
}

/**
 * How long one `stty` may take before it is killed and attach goes on with
 * processed output. (From a background job, changing the terminal stops the
 * whole job with SIGTTOU, attach too, as it stops any program that takes the
 * terminal, until it is brought to the foreground.)
 */
const STTY_TIMEOUT_MS = 2_000;

/** Runs `stty args` on `fd`; its output, or undefined when it failed. */
function stty(fd: number, args: readonly string[]): string | undefined {
  const result = spawnSync('stty', args, { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', timeout: STTY_TIMEOUT_MS, killSignal: 'SIGKILL' });
  return result.status === 0 ? result.stdout : undefined;
}
