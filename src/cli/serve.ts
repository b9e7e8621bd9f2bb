import { parseArgs } from 'node:util';
import { HostRuntime } from '../host/runtime.js';
import { PtyBackend } from '../host/pty-backend.js';
import { startWsServer } from '../transport/ws-server.js';
import { DEFAULT_TOKEN_FILE, readOrCreateToken } from './token-file.js';

const HELP = `Usage: termwire serve [--port N] [--host ADDR] [--token-file PATH] [--shell CMD]

Serves real terminals (PTYs) over WebSocket. A client names a terminal when it
attaches; the first attach to a name starts a shell for it, later ones share it.

Options:
  --port N          port to listen on (default 7681; 0 picks a free one)
  --host ADDR       address to bind (default 127.0.0.1)
  --token-file PATH bearer token clients must present (default ${DEFAULT_TOKEN_FILE});
                    created with a random token, mode 0600, if missing
  --shell CMD       program to run in each terminal (default $SHELL or bash)
  -h, --help        show this help
`;

const TERMINAL_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export async function run(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: { port: { type: 'string', default: '7681' }, host: { type: 'string', default: '127.0.0.1' }, 'token-file': { type: 'string', default: DEFAULT_TOKEN_FILE }, shell: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
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
  const { token, created } = readOrCreateToken(values['token-file']!);
  const command = values.shell ?? process.env.SHELL ?? 'bash';
  const host = new HostRuntime({ terminals: (name) => (TERMINAL_NAME.test(name) ? new PtyBackend({ command }) : undefined) });
  const server = await startWsServer({ host: values.host!, port, token, onLink: (link) => host.accept(link) });
  process.stdout.write(`termwire: serving terminals on ${server.url}\n`);
  process.stdout.write(`termwire: bearer token ${created ? 'written to' : 'read from'} ${values['token-file']}\n`);
  process.stdout.write(`termwire: attach with: termwire attach ${server.url} --token-file ${values['token-file']}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  host.close();
  await server.close();
  return 0;
}
