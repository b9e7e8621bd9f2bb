import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';

// A person's session, played by tmux: `termwire serve` with real PTYs, and
// `termwire attach` inside a real tmux terminal, typed at with send-keys.
const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'termwire.js');
const socket = `termwire-test-${process.pid}`;
const session = 'attach';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const pane = () => tmux('capture-pane', '-p', '-t', session);
const hasSession = () => {
  try {
    tmux('has-session', '-t', session);
    return true;
  } catch {
    return false;
  }
};

describe('termwire attach in tmux against termwire serve', () => {
  let dir: string;
  let server: ChildProcess;
  let url = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'termwire-attach-'));
    const serveOutput: string[] = [];
    server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--token-file', join(dir, 'token'), '--shell', 'bash'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PS1: '$ ' } });
    server.stdout!.on('data', (c: Buffer) => serveOutput.push(c.toString()));
    server.stderr!.on('data', (c: Buffer) => serveOutput.push(c.toString()));
    await waitFor(() => /serving terminals on (ws:\S+)/.test(serveOutput.join('')), { what: `serve to print its URL; it printed: ${serveOutput.join('')}`, timeoutMs: 15_000 });
    url = /serving terminals on (ws:\S+)/.exec(serveOutput.join(''))![1]!;
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', session, '-x', '100', '-y', '30', `${process.execPath} ${bin} attach ${url} --token-file ${join(dir, 'token')}`);
    tmux('set-option', '-t', session, 'status', 'off');
    tmux('set-option', '-t', session, 'remain-on-exit', 'on');
  });

  afterAll(() => {
    if (hasSession()) tmux('kill-server');
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('types, sees, follows a resize, and detaches', async () => {
    tmux('send-keys', '-t', session, 'echo typed-$((6*7))-here', 'Enter');
    await waitFor(() => /^typed-42-here\s*$/m.test(pane()), { what: 'the command output typed-42-here on its own line', timeoutMs: 15_000 });

    tmux('resize-window', '-t', session, '-x', '120', '-y', '40');
    tmux('send-keys', '-t', session, 'stty size', 'Enter');
    await waitFor(() => /^40 120\s*$/m.test(pane()), { what: "the remote shell's stty size to report 40 120", timeoutMs: 15_000 });

    tmux('send-keys', '-t', session, 'C-]');
    await waitFor(() => pane().includes('[termwire: detached]'), { what: 'the detach notice', timeoutMs: 10_000 });
    await waitFor(() => tmux('display-message', '-p', '-t', session, '#{pane_dead}').trim() === '1', { what: 'the attach process to exit after detaching', timeoutMs: 10_000 });
  });
});
