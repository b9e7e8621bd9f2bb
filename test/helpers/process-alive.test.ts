import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, processIdentity, processState, waitForExit } from './process-alive.js';
import { waitFor } from './wait-for.js';

const stop: Array<() => void> = [];
afterEach(() => stop.splice(0).forEach((f) => f()));

/**
 * A real zombie: the shell starts a background sleep, prints its pid, then
 * becomes another sleep, which never reaps children. Only once the exec is
 * done is the child killed: a shell still running would reap it itself.
 */
async function makeZombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'inherit'] });
  stop.push(() => parent.kill('SIGKILL'));
  let out = '';
  parent.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor(() => /^\d+\n/.test(out), { what: 'the shell to print its child pid', timeoutMs: 10_000 });
  const pid = Number(out.trim());
  stop.push(() => isAlive(pid) && process.kill(pid, 'SIGKILL'));
  await waitFor(() => commandOf(parent.pid!) === 'sleep', { what: `the shell ${parent.pid} to exec into sleep`, timeoutMs: 10_000 });
  process.kill(pid, 'SIGKILL');
  await waitFor(() => processState(pid) === 'Z', { what: `pid ${pid} to become a zombie`, timeoutMs: 10_000 });
  return pid;
}

function commandOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

describe('isAlive', () => {
  it('counts a zombie as gone, though signal 0 still reaches it', async () => {
    const zombie = await makeZombie();
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(isAlive(zombie)).toBe(false);
    await waitForExit(zombie, { what: 'the zombie to count as gone', timeoutMs: 1_000 });
  });

  it('counts a running process as alive and an exited one as gone', async () => {
    expect(isAlive(process.pid)).toBe(true);
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = child.pid!;
    const exited = new Promise((r) => child.once('exit', r));
    expect(isAlive(pid)).toBe(true);
    child.kill('SIGKILL');
    await exited;
    expect(isAlive(pid)).toBe(false);
  });

  it('counts a stranger that now holds the pid as gone: an identity keeps its start time', () => {
    const self = processIdentity(process.pid)!;
    expect(isAlive(self)).toBe(true);
    // The same pid with another start time is what a reused pid looks like.
    expect(isAlive({ pid: process.pid, startTime: String(Number(self.startTime) - 1) })).toBe(false);
    expect(processIdentity(2 ** 22 + 1)).toBeUndefined();
  });

  it('names the state and prints the process table when a process outlives the deadline', async () => {
    const error = await waitForExit(process.pid, { what: 'this test process to exit', timeoutMs: 50 }).catch((e: Error) => e);
    expect(String(error)).toMatch(/pid \d+ is in state [RS], running "[^"]*node[^"]*"; process table:\n\s*PID\s+PPID\s+STAT\s+CMD/);
  });
});
