import { parseArgs } from 'node:util';
import { TerminalClient } from '../client/client.js';
import { connectWs } from '../transport/ws-client.js';
import { DEFAULT_TOKEN_FILE, readToken } from './token-file.js';

const HELP = `Usage: termwire attach <url> [--terminal NAME] [--token-file PATH]

Attaches this terminal to a terminal served by \`termwire serve\`. Keys go to
the remote terminal; its screen is drawn here; the size follows this window.
A link that dies is noticed by liveness and reconnected automatically; you are told
when it is down and when it is back.

Options:
  --terminal NAME   which terminal to attach (default main)
  --token-file PATH bearer token (default ${DEFAULT_TOKEN_FILE})
  -h, --help        show this help

Detach with Ctrl-] (the session keeps running on the host).
`;

const DETACH_KEY = '\x1d'; // Ctrl-]
const CLEAR_AND_HOME = '\x1b[H\x1b[2J\x1b[3J';

export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { terminal: { type: 'string', default: 'main' }, 'token-file': { type: 'string', default: DEFAULT_TOKEN_FILE }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    process.stderr.write(`termwire attach: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const url = positionals[0];
  if (!url || !/^wss?:\/\//.test(url)) {
    process.stderr.write(`termwire attach: a ws:// or wss:// URL is required\n\n${HELP}`);
    return 2;
  }
  let token: string;
  try {
    token = readToken(values['token-file']!);
  } catch (e) {
    process.stderr.write(`termwire attach: ${(e as Error).message}\n`);
    return 2;
  }
  const out = process.stdout;
  const notice = (text: string) => out.write(`\r\n\x1b[7m[termwire: ${text}]\x1b[0m\r\n`);
  const viewport = () => ({ cols: out.columns || 80, rows: out.rows || 24 });
  const client = new TerminalClient({ connect: () => connectWs(url, { token }) });
  const stream = client.subscribe(values.terminal!, { viewport: viewport() });
  let everConnected = false;
  client.on('connected', () => (everConnected = true));
  client.on('disconnected', ({ reason }) => notice(`link down (${reason}); reconnecting, keys are held until it is back`));
  client.on('reconnected', () => notice('link back'));
  stream.on('snapshot', (snapshot) => out.write(CLEAR_AND_HOME + snapshot.text));
  stream.on('output', ({ text }) => out.write(text));
  stream.on('errorFrame', ({ code, message }) => notice(`host error ${code}: ${message}`));
  stream.on('inputNotice', ({ message }) => notice(message));
  let instanceId: string | undefined;
  stream.on('subscribed', (event) => {
    if (instanceId !== undefined && event.instanceId !== undefined && event.instanceId !== instanceId) notice('this is a new terminal: the one you were attached to has ended');
    instanceId = event.instanceId ?? instanceId;
  });
  client.start();

  const stdin = process.stdin;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  const onResize = () => {
    const size = viewport();
    stream.resize(size.cols, size.rows);
  };
  out.on('resize', onResize);
  const code = await new Promise<number>((resolve) => {
    stdin.on('data', (data: string) => {
      const detachAt = data.indexOf(DETACH_KEY);
      if (detachAt >= 0) {
        if (detachAt > 0) stream.write(data.slice(0, detachAt));
        resolve(0);
        return;
      }
      stream.write(data);
    });
    stream.on('exit', () => resolve(0));
    stdin.on('end', () => resolve(0));
  });
  if (stdin.isTTY) stdin.setRawMode(false);
  out.off('resize', onResize);
  stdin.pause();
  notice(everConnected ? 'detached' : 'detached before the link came up');
  client.close();
  return code;
}
