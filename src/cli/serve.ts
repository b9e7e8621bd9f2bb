import { parseArgs } from 'node:util';
import { HostRuntime } from '../host/runtime.js';
import { PtyBackend } from '../host/pty-backend.js';
import { startWsServer, type WsServer } from '../transport/ws-server.js';
import { networkSource } from '../transport/network-source.js';
import { shellProblem } from './shell-check.js';
import { startShutdownWatchdog } from './shutdown-watchdog.js';
import { DEFAULT_TOKEN_FILE, readOrCreateToken, TokenFileError } from './token-file.js';

const HELP = `Usage: termwire serve [--port N] [--host ADDR] [--token-file PATH] [--shell CMD] [--no-login]

Serves real terminals (PTYs) over WebSocket. A client names a terminal when it
attaches; the first attach to a name starts a shell for it, later ones share it.
Each shell starts as sshd starts one: a login shell in your home directory,
with the attaching client's TERM (when this host has its terminfo entry, else
xterm-256color) and locale (LANG, LANGUAGE, LC_*), and COLORTERM.

Options:
  --port N          port to listen on (default 7681; 0 picks a free one)
  --host ADDR       address to bind (default 127.0.0.1)
  --token-file PATH bearer token clients must present (default ${DEFAULT_TOKEN_FILE});
                    created with a random token, mode 0600, if missing; refused
                    when it is a symlink, not yours, readable or writable by
                    others, under a directory (up to /) others can write or
                    reached through a symlink, over 4 KiB, more than one
                    line, or shorter than 128 bits
  --shell CMD       program to run in each terminal (default $SHELL or bash);
                    checked at startup
  --no-login        run it as a plain shell in serve's working directory,
                    not as a login shell in your home directory
  -h, --help        show this help

A terminal whose shell exits is removed: the next attach to its name starts a
new shell. A terminal nobody is attached to for an hour is ended. SIGTERM or
SIGINT closes every connection and ends every shell (SIGHUP, then SIGKILL)
within 2 s; a second signal exits at once.
`;

/** After the first signal the process exits by this deadline, whatever the peers do. */
const SHUTDOWN_DEADLINE_MS = 1_800;
/** Past this the watchdog thread kills the process, even if the main thread is too busy to run its own deadline. */
const SHUTDOWN_WATCHDOG_MS = 1_950;

const TERMINAL_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export async function run(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { port: { type: 'string', default: '7681' }, host: { type: 'string', default: '127.0.0.1' }, 'token-file': { type: 'string', default: DEFAULT_TOKEN_FILE }, shell: { type: 'string' }, 'no-login': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (e) {
    process.stderr.write(`termwire serve: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`termwire serve: --port must be an integer from 0 to 65535, got '${values.port}'\n`);
    return 2;
  }
  const command = values.shell ?? process.env.SHELL ?? 'bash';
  const problem = shellProblem(command);
  if (problem) return usageError(problem);
  let token: string;
  let created: boolean;
  try {
    ({ token, created } = readOrCreateToken(values['token-file']!));
  } catch (e) {
    if (e instanceof TokenFileError) return usageError(e.message);
    throw e;
  }
  const log = (line: string) => process.stderr.write(line + '\n');
  const login = !values['no-login'];
  const host = new HostRuntime({ terminals: (name, session) => (TERMINAL_NAME.test(name) ? new PtyBackend({ command, login, term: session.term, env: session.env }) : undefined), log });
  let server: WsServer;
  try {
    server = await startWsServer({ host: values.host!, port, token, onLink: (link, peer) => host.accept(link, { source: networkSource(peer.remoteAddress) }), log });
  } catch (e) {
    await host.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') return usageError(`port ${port} on ${values.host} is already in use (EADDRINUSE); pick another with --port`);
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL') return usageError(`cannot listen on ${values.host}:${port} (${code})`);
    throw e;
  }
  // Started now, so the signal only has to arm it.
  const watchdog = startShutdownWatchdog();
  // Listening for signals before saying where we serve: a SIGTERM right after that line must not find node's default action.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(`termwire: serving terminals on ${server.url}\n`);
  process.stdout.write(`termwire: bearer token ${created ? 'written to' : 'read from'} ${values['token-file']}\n`);
  process.stdout.write(`termwire: attach with: termwire attach ${server.url} --token-file ${values['token-file']}\n`);
  const signal = await stopSignal;
  // A second signal, or the deadline, ends the process whatever is still open.
  const force = (why: string) => {
    process.stderr.write(`termwire: ${why}; exiting now\n`);
    process.exit(1);
  };
  process.once('SIGINT', () => force('second signal'));
  process.once('SIGTERM', () => force('second signal'));
  const deadline = setTimeout(() => force(`shutdown took over ${SHUTDOWN_DEADLINE_MS}ms`), SHUTDOWN_DEADLINE_MS).unref();
  watchdog.arm(SHUTDOWN_WATCHDOG_MS, `shutdown took over ${SHUTDOWN_WATCHDOG_MS}ms`);
  process.stderr.write(`termwire: ${signal}: closing connections and ending terminals\n`);
  await Promise.all([server.close(), host.close()]);
  clearTimeout(deadline);
  watchdog.disarm();
  // Everything is closed; a handle a dependency still holds must not keep the process up.
  setTimeout(() => process.exit(0), 100).unref();
  return 0;
}

function usageError(message: string): number {
  process.stderr.write(`termwire serve: ${message}\n`);
  return 2;
}
