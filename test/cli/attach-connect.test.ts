import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWsServer, type WsServer } from '../../src/transport/ws-server.js';
import { waitFor } from '../helpers/wait-for.js';

// `termwire attach` when it cannot get in: it must say why and stop, not retry forever.
const bin = join(import.meta.dirname, '..', '..', 'bin', 'termwire.js');
const EXIT_DEADLINE_MS = 15_000;

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

/** Runs attach with stdin held open (as a person's terminal would be) until it exits by itself. */
async function attachUntilExit(args: string[]): Promise<Finished> {
  const child = spawn(process.execPath, [bin, 'attach', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  let code: number | null | undefined;
  child.once('exit', (c) => (code = c));
  await waitFor(() => code !== undefined, { what: `attach to exit by itself; it printed: ${stdout}${stderr}`, timeoutMs: EXIT_DEADLINE_MS });
  return { code: code!, stdout, stderr };
}

/** A port nothing listens on: bound once by the kernel's choice, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('termwire attach when it cannot connect', () => {
  let dir: string;
  let server: WsServer;
  let links = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'termwire-attach-connect-'));
    server = await startWsServer({ host: '127.0.0.1', port: 0, token: 'the-right-token', onLink: (link) => {
      links++;
      link.close('not serving terminals in this test');
    } });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 at once with one line naming the refusal when the host refuses the token', async () => {
    const tokenFile = join(dir, 'wrong-token');
    writeFileSync(tokenFile, `${'0'.repeat(64)}\n`, { mode: 0o600 }); // well-formed (0600, 256 bits), just not the host's
    const startedAt = Date.now();
    const result = await attachUntilExit([server.url, '--token-file', tokenFile, '--connect-timeout-ms', '30000']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`termwire attach: the host refused the token with HTTP 401: ${tokenFile} does not hold the token of the host at ${server.url} (\`termwire serve\` prints its token file)\n`);
    expect(result.stdout).toContain(`connecting to ${server.url}`);
    expect(result.stdout).not.toContain('retrying');
    // A refused token is final: no retries until the deadline.
    expect(Date.now() - startedAt).toBeLessThan(EXIT_DEADLINE_MS);
    expect(links).toBe(0);
  });

  it('says each failure with its reason, and exits 1 naming the limit when nothing listens within --connect-timeout-ms', async () => {
    const port = await freePort();
    const url = `ws://127.0.0.1:${port}`;
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${'1'.repeat(64)}\n`, { mode: 0o600 });
    const result = await attachUntilExit([url, '--token-file', tokenFile, '--connect-timeout-ms', '1000']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`connecting to ${url}`);
    expect(result.stdout).toMatch(/cannot connect: .*ECONNREFUSED.*; retrying in \d+\.\d s/);
    expect(result.stderr).toMatch(new RegExp(`^termwire attach: no connection to ${url} within --connect-timeout-ms 1000 \\(last failure: .*ECONNREFUSED.*\\)\\n$`));
  });

  it('refuses a --connect-timeout-ms that is not a positive integer', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${'1'.repeat(64)}\n`, { mode: 0o600 });
    const result = await attachUntilExit([server.url, '--token-file', tokenFile, '--connect-timeout-ms', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("termwire attach: --connect-timeout-ms must be a positive integer, got '0'\n");
  });
});
