import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { TerminalClient } from '../../src/client/client.js';
import { connectWs } from '../../src/transport/ws-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { killLeftoverServes, startServe } from './serve-process.js';

// The session a shell of the real `termwire serve` (built) starts in: a login
// shell in the user's home with the client's TERM and locale, as sshd gives,
// or with --no-login a plain shell where serve runs.

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'termwire-session-')));
const home = join(dir, 'home');
mkdirSync(home);
const tokenFile = join(dir, 'token');
const clients: TerminalClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  killLeftoverServes();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REPORT = 'echo "[$(shopt -q login_shell && echo login || echo plain)|$PWD|$TERM|$LANG|$LC_TIME|${LC_ALL-unset}|${EVIL-unset}]"\r';

/** Attaches to a new terminal of serve (started with `args`) asking for `environment`, and returns what REPORT prints there. */
async function sessionOf(args: string[], environment: Record<string, string>): Promise<string> {
  const serve = await startServe(['--token-file', tokenFile, '--shell', 'bash', ...args], { HOME: home });
  const client = new TerminalClient({ connect: () => connectWs(serve.url, { token: readFileSync(tokenFile, 'utf8').trim() }) });
  clients.push(client);
  client.start();
  const stream = client.subscribe('session', { environment, viewport: { cols: 250, rows: 24 } });
  await waitFor(() => stream.state === 'live', { what: 'subscribed', timeoutMs: 15_000 });
  stream.write(REPORT);
  const line = () => stream.screenLines().find((l) => /^\[(login|plain)\|.*\]$/.test(l));
  await waitFor(() => line() !== undefined, { what: `the report on screen: ${stream.screenLines().join('\n')}`, timeoutMs: 15_000 });
  return line()!;
}

describe('termwire serve: the session a shell starts in', () => {
  it('is a login shell in the home directory, with the TERM and locale the client sent and nothing else it sent', async () => {
    const report = await sessionOf([], { TERM: 'vt100', LANG: 'C.UTF-8', LC_TIME: 'C', LC_ALL: '$(touch pwned)', EVIL: 'x' });
    expect(report).toBe(`[login|${home}|vt100|C.UTF-8|C|unset|unset]`);
  });

  it('falls back to xterm-256color for a TERM off the allow-list', async () => {
    const report = await sessionOf([], { TERM: 'my-own-term' });
    expect(report).toMatch(/^\[login\|[^|]*\|xterm-256color\|/);
  });

  it('is a plain shell where serve runs with --no-login', async () => {
    const report = await sessionOf(['--no-login'], { TERM: 'vt100' });
    expect(report).toMatch(new RegExp(`^\\[plain\\|${process.cwd().replace(/[/.]/g, '\\$&')}\\|vt100\\|`));
  });
});
