import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { privateTempRoot } from '../lib/private-temp.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/termwire.js', import.meta.url));
const RSS_SAMPLE_MS = 100;

/** `termwire serve` in a child process, as an operator runs it; its RSS sampled from /proc. */
export interface SoakServer {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
  /** Highest RSS seen so far, in bytes. */
  peakRss(): number;
  /** Whether the process is still running. */
  running(): boolean;
  /** Sends SIGTERM and returns how long the process took to exit, or undefined past `giveUpMs` (then it is killed). */
  terminate(giveUpMs: number): Promise<number | undefined>;
}

function rssBytes(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // the process is gone
  }
}

export async function startSoakServer(): Promise<SoakServer> {
  const dir = mkdtempSync(join(privateTempRoot(), 'termwire-soak-'));
  const tokenFile = join(dir, 'token');
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--token-file', tokenFile, '--shell', 'bash', '--no-login'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PS1: '$ ' },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /serving terminals on (ws:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`termwire serve exited with ${code} before listening: ${stderr}`)));
  });
  const pid = child.pid!;
  let peak = rssBytes(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), RSS_SAMPLE_MS);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    token: readFileSync(tokenFile, 'utf8').trim(),
    pid,
    peakRss: () => Math.max(peak, rssBytes(pid)),
    running: () => child.exitCode === null && child.signalCode === null,
    async terminate(giveUpMs) {
      clearInterval(sampler);
      try {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const started = performance.now();
        child.kill('SIGTERM');
        const inTime = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), giveUpMs))]);
        if (inTime) return performance.now() - started;
        child.kill('SIGKILL');
        await exited;
        return undefined;
      } finally {
        // The token file's folder: every soak run left one behind in the temp dir.
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
