import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';
import { killLeftoverServes, startServe } from './serve-process.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'termwire.js');
const LINES = 2_000_000;
/** The local terminal, played by this test: it reads attach's output at this rate, as a slow terminal (or a slow ssh hop) would. */
const READ_BYTES_PER_TICK = 256 * 1024;
const TICK_MS = 20;

let dir: string | undefined;
afterEach(() => {
  killLeftoverServes();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('attach with one subscriber and a terminal slower than the program', () => {
  it(`delivers every line of seq 1 ${LINES}, in order: the program waits instead of its output being skipped`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'termwire-noholes-'));
    const tokenFile = join(dir, 'token');
    const serve = await startServe(['--token-file', tokenFile, '--shell', 'bash', '--no-login']);
    const attach = spawn(process.execPath, [bin, 'attach', serve.url, '--token-file', tokenFile, '--terminal', 'holes'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => attach.once('exit', (code) => resolve(code)));

    // A slow reader: the pipe fills, attach's writes wait, its Acks wait, and the host's window for it shuts.
    const received: Buffer[] = [];
    let receivedBytes = 0;
    let budget = READ_BYTES_PER_TICK;
    const stdout = attach.stdout!;
    stdout.on('data', (chunk: Buffer) => {
      received.push(chunk);
      receivedBytes += chunk.length;
      budget -= chunk.length;
      if (budget <= 0) stdout.pause();
    });
    const reader = setInterval(() => {
      budget = READ_BYTES_PER_TICK;
      stdout.resume();
    }, TICK_MS);
    const ended = new Promise((resolve) => stdout.once('end', resolve));
    try {
      await waitFor(() => Buffer.concat(received).toString().includes('$ '), { what: 'the remote prompt', timeoutMs: 20_000 });
      attach.stdin!.write(`seq 1 ${LINES}; exit\r`);
      const code = await Promise.race([exited, waitFor(() => false, { what: 'attach to exit with the remote shell', timeoutMs: 240_000 }).then(() => -1)]);
      await ended;
      expect(code).toBe(0);
    } finally {
      clearInterval(reader);
      attach.kill('SIGKILL');
    }
    if (process.env.HOLES_DUMP) (await import("node:fs")).writeFileSync(process.env.HOLES_DUMP, Buffer.concat(received));
    const numbers = Buffer.concat(received)
      .toString()
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '') // readline's bracketed-paste switch before the first line
      .split('\r\n')
      .map((line) => line.slice(line.lastIndexOf('\r') + 1))
      .filter((line) => /^\d+$/.test(line))
      .map(Number);
    const firstWrong = numbers.findIndex((n, i) => n !== i + 1);
    expect(firstWrong, `line ${firstWrong + 1} was ${numbers[firstWrong]}; ${receivedBytes} bytes read slowly`).toBe(-1);
    expect(numbers.length).toBe(LINES);
    expect(Buffer.concat(received).toString()).not.toMatch(/output skipped/);
  }, 300_000);
});
