import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PtyBackend, type PtyBackendOptions } from '../../src/host/pty-backend.js';
import { installPtySpawn, programPath, ptyStarts } from '../../src/host/pty-spawn.js';
import type { TerminalExit } from '../../src/host/terminal.js';
import { waitFor } from '../helpers/wait-for.js';

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'termwire-pty-spawn-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Run {
  readonly backend: PtyBackend;
  output: string;
  exit?: TerminalExit;
}

function start(options: PtyBackendOptions): Run {
  const backend = new PtyBackend(options);
  const run: Run = { backend, output: '' };
  backend.onData((data) => (run.output += data));
  backend.onExit((exit) => (run.exit = exit));
  return run;
}

async function exited(run: Run): Promise<TerminalExit> {
  await waitFor(() => run.exit !== undefined, { what: `the program to exit (output so far: ${JSON.stringify(run.output)})`, timeoutMs: 15_000 });
  return run.exit!;
}

/** Starts with posix_spawn: counted as such, not handed to node-pty's forkpty. */
function spawned<T>(startIt: () => T): T {
  const before = { ...ptyStarts };
  const result = startIt();
  expect({ posix_spawn: ptyStarts.posix_spawn - before.posix_spawn, forkpty: ptyStarts.forkpty - before.forkpty }).toEqual({ posix_spawn: 1, forkpty: 0 });
  return result;
}

describe.runIf(process.platform === 'linux')('terminals started with posix_spawn (src/host/native/pty-spawn.c)', () => {
  it('is what this build uses: npm run build compiled the addon', () => {
    expect(installPtySpawn()).toBe('posix_spawn');
  });

  it('sets the child up as forkpty does: its own session, the PTY its controlling terminal, size, directory, environment, no signal ignored or blocked', async () => {
    const script = [
      '[ -t 0 ] && echo tty=yes',
      'read -r pid comm state ppid pgrp sid ttynr tpgid rest < /proc/$$/stat',
      'echo "leader=$([ "$sid" = $$ ] && [ "$tpgid" = $$ ] && echo yes)"',
      'echo "size=$(stty size)" pwd=$(pwd) foo=$FOO',
      'grep -E "^Sig(Ign|Blk)" /proc/self/status',
    ].join('; ');
    const run = spawned(() => start({ command: 'sh', args: ['-c', script], cwd: scratch, cols: 91, rows: 33, env: { FOO: 'bar' } }));
    expect(await exited(run)).toEqual({ exitCode: 0, signal: 0 });
    const lines = run.output.split(/\r?\n/);
    expect(lines).toContain('tty=yes');
    expect(lines).toContain('leader=yes');
    expect(lines).toContain(`size=33 91 pwd=${scratch} foo=bar`);
    // Node ignores SIGPIPE, and posix_spawn ignores glibc's own signals unless told: the child starts with neither.
    expect(lines).toContain('SigIgn:\t0000000000000000');
    expect(lines).toContain('SigBlk:\t0000000000000000');
  });

  it('reports the exit status and the signal that ended it, as node-pty does', async () => {
    expect(await exited(spawned(() => start({ command: 'sh', args: ['-c', 'exit 7'] })))).toEqual({ exitCode: 7, signal: 0 });
    const killed = spawned(() => start({ command: 'sh', args: ['-c', 'kill -TERM $$'] }));
    expect((await exited(killed)).signal).toBe(15);
  });

  it('delivers Ctrl-C to the foreground program through the terminal', async () => {
    const run = spawned(() => start({ command: 'sh', args: ['-c', 'echo ready; sleep 30'] }));
    await waitFor(() => run.output.includes('ready'), { what: 'the program to start', timeoutMs: 15_000 });
    run.backend.write('\x03');
    expect((await exited(run)).signal).toBe(2);
  });

  it("finds the program on the child's PATH, not the host's", async () => {
    const bin = join(scratch, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'termwire-only-here'), '#!/bin/sh\necho found-on-child-path\n');
    chmodSync(join(bin, 'termwire-only-here'), 0o755);
    const run = spawned(() => start({ command: 'termwire-only-here', env: { PATH: `${bin}:/usr/bin:/bin` } }));
    expect(await exited(run)).toEqual({ exitCode: 0, signal: 0 });
    expect(run.output).toContain('found-on-child-path');
  });

  it("leaves a program that is not there to node-pty's forkpty, which says so in the terminal and exits 1, as before", async () => {
    const before = ptyStarts.forkpty;
    const run = start({ command: 'termwire-no-such-program' });
    expect(ptyStarts.forkpty).toBe(before + 1);
    expect((await exited(run)).exitCode).toBe(1);
    expect(run.output).toContain('execvp(3) failed');
  });
});

describe('programPath', () => {
  it('searches the PATH given, relative entries from the working directory, and glibc\'s default without one', () => {
    expect(programPath('./x', [], '/')).toBe('./x');
    expect(programPath('sh', ['PATH=/nonexistent:/bin'], '/')).toBe('/bin/sh');
    expect(programPath('sh', ['HOME=/root'], '/')).toBe('/bin/sh');
    expect(programPath('sh', ['PATH=bin'], '/')).toBe('/bin/sh');
    expect(programPath('sh', ['PATH=/nonexistent'], '/')).toBeUndefined();
  });
});
