import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { waitFor } from '../helpers/wait-for.js';

// A person's session, played by tmux: `termwire serve` with bash in real
// PTYs, and `termwire attach` in its default (native) mode inside a real tmux
// terminal. Between them a SIMULATED network (test/helpers/fault-proxy.ts)
// whose outage is silent: the open connection is frozen, never closed, and
// new connections fail until it ends.
const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'termwire.js');
const socket = `termwire-native-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const pane = (target: string) => tmux('capture-pane', '-p', '-t', target);
/** Every line of the pane: its scrollback (tmux's history) and its screen, wrapped lines joined. */
const paneWithScrollback = (target: string) => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', target).split('\n');
const paneFormat = (target: string, format: string) => tmux('display-message', '-p', '-t', target, format).trim();
const has = (program: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

async function waitForPane(target: string, expected: RegExp, what: string, timeoutMs = 20_000): Promise<void> {
  try {
    await waitFor(() => expected.test(pane(target)), { what, timeoutMs });
  } catch (e) {
    throw new Error(`${(e as Error).message}; the pane shows:\n${pane(target)}`);
  }
}

/** `termwire serve` with bash in real PTYs on a free port; resolves once it prints its URL. */
async function startServe(tokenFile: string): Promise<{ server: ChildProcess; url: string }> {
  const printed: string[] = [];
  const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--token-file', tokenFile, '--shell', 'bash', '--no-login'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PS1: '$ ' } });
  server.stdout!.on('data', (c: Buffer) => printed.push(c.toString()));
  server.stderr!.on('data', (c: Buffer) => printed.push(c.toString()));
  await waitFor(() => /serving terminals on (ws:\S+)/.test(printed.join('')), { what: 'serve to print its URL', timeoutMs: 15_000 });
  return { server, url: /serving terminals on (ws:\S+)/.exec(printed.join(''))![1]! };
}

/** How many lines of the pane, scrollback included, are exactly `line`. */
const occurrences = (lines: readonly string[], line: string) => lines.filter((l) => l.trimEnd() === line).length;

describe.skipIf(!has('tmux'))("attach's native mode: the remote's lines in the user's own scrollback, each once", () => {
  let dir: string;
  let server: ChildProcess;
  let proxy: FaultProxy;
  let tokenFile: string;

  /** A 100x30 tmux session attached through the proxy to `terminal`, kept readable after attach exits. */
  const startSession = (name: string) => {
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', name, '-x', '100', '-y', '30', `${process.execPath} ${bin} attach ${proxy.url} --token-file ${tokenFile} --terminal ${name}`);
    tmux('set-option', '-t', name, 'status', 'off');
    tmux('set-option', '-t', name, 'remain-on-exit', 'on');
    tmux('set-option', '-t', name, 'history-limit', '10000');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'termwire-native-'));
    tokenFile = join(dir, 'token');
    let url: string;
    ({ server, url } = await startServe(tokenFile));
    proxy = await startFaultProxy(Number(new URL(url).port));
  });

  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // no session was started
    }
    proxy?.close();
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds each remote line once through a silent 5 s outage, the output printed meanwhile included', async () => {
    const name = 'outage';
    startSession(name);
    await waitForPane(name, /^\$\s*$/m, 'the remote prompt');
    tmux('send-keys', '-t', name, 'for i in $(seq 1 60); do echo before-$i; done', 'Enter');
    await waitForPane(name, /^before-60\s*$/m, 'before-60');
    // The remote prints once the test says so, whatever the link does: it prints into the outage.
    const go = join(dir, 'go');
    tmux('send-keys', '-t', name, `while [ ! -e ${go} ]; do sleep 0.05; done; for i in $(seq 1 60); do echo during-$i; done; echo all-$((6*7))`, 'Enter');
    await waitForPane(name, /while \[ ! -e/, 'the waiting loop typed');
    proxy.outage(5_000);
    writeFileSync(go, '');
    await waitForPane(name, /^all-42\s*$/m, 'the output printed during the outage, after the reconnect', 30_000);
    // A line of its own, above the replayed output: in the scrollback by now.
    await waitFor(() => paneWithScrollback(name).some((l) => l.includes('[termwire: link back after')), { what: 'the link-back notice', timeoutMs: 20_000 });

    const lines = paneWithScrollback(name);
    for (let n = 1; n <= 60; n++) {
      expect(occurrences(lines, `before-${n}`), `before-${n}`).toBe(1);
      expect(occurrences(lines, `during-${n}`), `during-${n}`).toBe(1);
    }
    // Printed during the outage: the lines reached this terminal only after attach noticed the silence.
    const down = lines.findIndex((l) => l.includes('[termwire: link down'));
    expect(down).toBeGreaterThan(lines.findIndex((l) => l.trimEnd() === 'before-60'));
    expect(down).toBeLessThan(lines.findIndex((l) => l.trimEnd() === 'during-1'));
    const downFor = Number(/link back after ([\d.]+) s down/.exec(lines.join('\n'))![1]);
    expect(downFor).toBeGreaterThanOrEqual(5);
    expect(lines.join('\n')).not.toMatch(/of output skipped/);
    expect(paneFormat(name, '#{alternate_on}')).toBe('0');

    tmux('send-keys', '-t', name, 'C-]');
    await waitForPane(name, /\[termwire: detached\]/, 'the detach notice');
    // As after ssh: the session's lines stay in the user's scrollback, once.
    const after = paneWithScrollback(name);
    expect(occurrences(after, 'during-60')).toBe(1);
  });

  it.skipIf(!has('less'))('uses the local alternate screen only while the remote program uses its own', async () => {
    const name = 'pager';
    startSession(name);
    await waitForPane(name, /^\$\s*$/m, 'the remote prompt');
    tmux('send-keys', '-t', name, 'seq 1 40 | sed s/^/main-/', 'Enter');
    await waitForPane(name, /^main-40\s*$/m, 'main-40');
    expect(paneFormat(name, '#{alternate_on}')).toBe('0');
    tmux('send-keys', '-t', name, 'seq 1 200 | sed s/^/paged-/ | less', 'Enter');
    await waitForPane(name, /^paged-1\s*$/m, 'less showing the first page');
    expect(paneFormat(name, '#{alternate_on}')).toBe('1');
    tmux('send-keys', '-t', name, 'q');
    await waitFor(() => paneFormat(name, '#{alternate_on}') === '0', { what: 'the local terminal back on its main screen with the remote', timeoutMs: 20_000 });
    tmux('send-keys', '-t', name, 'echo done-$((6*7))', 'Enter');
    await waitForPane(name, /^done-42\s*$/m, 'done-42');
    const lines = paneWithScrollback(name);
    expect(occurrences(lines, 'main-1')).toBe(1);
    expect(occurrences(lines, 'main-40')).toBe(1);
    // The pager's screen was drawn on the alternate screen: none of it reached the scrollback.
    expect(occurrences(lines, 'paged-1')).toBe(0);
  });
});
