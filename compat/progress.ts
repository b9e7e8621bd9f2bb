/**
 * One small progress reporter for every long step. On a TTY: a single line
 * rewritten in place, color unless NO_COLOR. Otherwise (CI logs, pipes): one
 * plain line when a step starts and one when it ends, no escapes at all.
 */
export interface Progress {
  /** Starts a long step; returns a handle to update and end it. */
  step(label: string): ProgressStep;
  /** A one-off note that stays in the log. */
  note(msg: string): void;
}

export interface ProgressStep {
  update(msg: string): void;
  done(result?: string): void;
  fail(result?: string): void;
  /** Ends a step that judged something: ✓ only when it found nothing, `!` with the count otherwise. */
  found(findings: number): void;
}

export interface ProgressOptions {
  readonly stream: { write(s: string): unknown; isTTY?: boolean };
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly now?: () => number;
}

export function useColor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

export function createProgress(opts: ProgressOptions): Progress {
  const env = opts.env ?? process.env;
  const tty = opts.stream.isTTY === true;
  const color = useColor(opts.stream, env);
  const now = opts.now ?? Date.now;
  const paint = (code: string, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const write = (s: string) => void opts.stream.write(s);
  const line = (s: string) => (tty ? write(`\r\x1b[2K${s}`) : write(`${s}\n`));

  return {
    note(msg) {
      if (tty) write('\r\x1b[2K');
      write(`${paint('2', 'note:')} ${msg}\n`);
    },
    step(label) {
      const start = now();
      line(`${paint('36', '…')} ${label}`);
      const end = (mark: string, result: string | undefined) => {
        const secs = ((now() - start) / 1000).toFixed(1);
        const text = `${mark} ${label}${result ? `: ${result}` : ''} (${secs}s)`;
        tty ? write(`\r\x1b[2K${text}\n`) : write(`${text}\n`);
      };
      return {
        update: (msg) => {
          // Plain logs get every update too: CI shows progress only through new lines.
          line(`${paint('36', '…')} ${label}: ${msg}`);
        },
        done: (result) => end(paint('32', '✓'), result),
        fail: (result) => end(paint('31', '✗'), result),
        found: (findings) => (findings === 0 ? end(paint('32', '✓'), 'no findings') : end(paint('31', '!'), `${findings} finding(s)`)),
      };
    },
  };
}

/** A reporter that writes nothing (tests, --format json to stdout with no stderr wanted). */
export const silentProgress: Progress = {
  note: () => undefined,
  step: () => ({ update: () => undefined, done: () => undefined, fail: () => undefined, found: () => undefined }),
};
