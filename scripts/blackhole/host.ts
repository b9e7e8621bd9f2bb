// Black-hole run, host side: a real host runtime serving one real PTY whose
// program stamps every line it reads into --out. Runs inside its own netns.
import { parseArgs } from 'node:util';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { startWsServer } from '../../src/transport/ws-server.js';

const { values } = parseArgs({ options: { port: { type: 'string' }, out: { type: 'string' }, token: { type: 'string' }, bind: { type: 'string' } } });
const loop = `stty -echo; while IFS= read -r line; do printf '%s %s\\n' "$(date +%s.%N)" "$line" >> '${values.out}'; done`;
const host = new HostRuntime({ terminals: () => new PtyBackend({ command: 'bash', args: ['--noprofile', '--norc', '-c', loop] }) });
const server = await startWsServer({ host: values.bind!, port: Number(values.port), token: values.token!, onLink: (link) => host.accept(link) });
process.stdout.write(`ready ${server.url}\n`);
process.on('SIGTERM', () => {
  host.close();
  void server.close().then(() => process.exit(0));
});
