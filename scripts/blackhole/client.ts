// Black-hole run, client side: a real TerminalClient over WebSocket typing a
// numbered token every --interval ms; exits once every token is acked. Runs inside its own netns.
import { parseArgs } from 'node:util';
import { TerminalClient } from '../../src/client/client.js';
import { connectWs } from '../../src/transport/ws-client.js';

const { values } = parseArgs({ options: { url: { type: 'string' }, token: { type: 'string' }, tokens: { type: 'string' }, interval: { type: 'string' }, unsequenced: { type: 'boolean' } } });
// --unsequenced: advertise what v0.1.0 does (no inputAck), the control run without exactly-once input.
const V1_CAPS = { ackOutput: 1, outputPause: 1, writeUnavailable: 1 };
const total = Number(values.tokens);
const client = new TerminalClient({ ...(values.unsequenced ? { capabilities: V1_CAPS } : {}), connect: () => connectWs(values.url!, { token: values.token! }) });
client.on('connected', () => process.stdout.write('event connected\n'));
client.on('disconnected', ({ reason }) => process.stdout.write(`event disconnected ${reason}\n`));
client.on('reconnected', () => process.stdout.write('event reconnected\n'));
const stream = client.subscribe('blackhole');
stream.on('inputNotice', (n) => process.stdout.write(`notice ${n.code}\n`));
client.start();
let typed = 0;
const timer = setInterval(() => {
  typed++;
  stream.write(`tok-${String(typed).padStart(4, '0')}\r`);
  if (typed >= total) clearInterval(timer);
}, Number(values.interval));
const done = setInterval(() => {
  if (typed < total || stream.inputState.journal.unackedCount > 0 || (!values.unsequenced && !stream.inputState.sequenced) || stream.state !== 'live') return;
  clearInterval(done);
  process.stdout.write(`done typed ${typed}\n`);
  client.close();
  process.exit(0);
}, 100);
