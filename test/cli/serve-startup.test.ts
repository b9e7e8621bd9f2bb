import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readOrCreateToken, readToken, tokenBits } from '../../src/cli/token-file.js';
import { killLeftoverServes, refusedServe, startServe } from './serve-process.js';

// `termwire serve` refuses to start, with one line and exit 2, on anything
// wrong with its token file, its shell or its port. Runs the built bin.

const dir = mkdtempSync(join(tmpdir(), 'termwire-startup-'));
afterEach(killLeftoverServes);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD_TOKEN = 'a'.repeat(16) + 'Zq9_-Xw3Lk2Pm8Rt5Yv7Bn'; // 38 base64url characters: 228 bits
let n = 0;
function tokenFile(content: string, mode = 0o600): string {
  const path = join(dir, `token-${++n}`);
  writeFileSync(path, content, { mode });
  chmodSync(path, mode);
  return path;
}

/** Exit 2, exactly one line on stderr naming the problem, no stack trace, nothing on stdout. */
async function expectRefusal(args: string[], pattern: RegExp): Promise<void> {
  const { code, stderr, stdout } = await refusedServe(['--port', '0', ...args]);
  expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at |internal error/);
}

describe('termwire serve refuses a bad token file', () => {
  it('a world-writable file', () => expectRefusal(['--token-file', tokenFile(GOOD_TOKEN, 0o666)], /^termwire serve: token file \S+ has mode 0666: others can read or write it; run chmod 600/));
  it('a group-writable file', () => expectRefusal(['--token-file', tokenFile(GOOD_TOKEN, 0o620)], /has mode 0620/));
  it('a file owned by another user', async () => {
    const path = tokenFile(GOOD_TOKEN);
    if (process.getuid!() === 0) chownSync(path, 4242, 4242);
    else return; // only root can give a file away; as another user the check is the same line of code
    await expectRefusal(['--token-file', path], /is owned by uid 4242, not by this user \(uid 0\)/);
  });
  it('an empty file', () => expectRefusal(['--token-file', tokenFile('\n')], /^termwire serve: token file \S+ is empty$/m));
  it('a token shorter than 128 bits', () => expectRefusal(['--token-file', tokenFile('0123456789abcdef0123456789abcde')], /too short: about 124 bits < 128/));
  it('a symlink, even to a good file', () => {
    const link = join(dir, `link-${++n}`);
    symlinkSync(tokenFile(GOOD_TOKEN), link);
    return expectRefusal(['--token-file', link], /is a symbolic link; refusing it/);
  });
  it('a directory (unreadable as a token)', () => {
    const path = join(dir, `dir-${++n}`);
    mkdirSync(path);
    return expectRefusal(['--token-file', path], /is not a regular file/);
  });
  it('a FIFO, without waiting for a writer', () => {
    const path = join(dir, `fifo-${++n}`);
    execFileSync('mkfifo', ['-m', '600', path]);
    return expectRefusal(['--token-file', path], /is not a regular file/);
  });
  it('a file with another hard link', () => {
    const path = tokenFile(GOOD_TOKEN);
    linkSync(path, join(dir, `other-name-${n}`));
    return expectRefusal(['--token-file', path], /has 2 hard links: another name can read or replace it/);
  });
  it('a file in a directory others can write, without the sticky bit', () => {
    const open = join(dir, `open-${++n}`);
    mkdirSync(open);
    chmodSync(open, 0o777);
    const path = join(open, 'token');
    writeFileSync(path, GOOD_TOKEN, { mode: 0o600 });
    return expectRefusal(['--token-file', path], /the directory \S+ of token file \S+ has mode 0777: others can replace the file/);
  });
  it('a file in a directory owned by another user', async () => {
    if (process.getuid!() !== 0) return; // only root can give a directory away
    const theirs = join(dir, `theirs-${++n}`);
    mkdirSync(theirs, { mode: 0o755 });
    const path = join(theirs, 'token');
    writeFileSync(path, GOOD_TOKEN, { mode: 0o600 });
    chownSync(theirs, 4242, 4242);
    await expectRefusal(['--token-file', path], /the directory \S+ of token file \S+ is owned by uid 4242/);
  });
  it('never creates a file through a symlink at the token path', async () => {
    const target = join(dir, `target-${++n}`);
    const link = join(dir, `dangling-${n}`);
    symlinkSync(target, link);
    await expectRefusal(['--token-file', link], /is a symbolic link; refusing it/);
    expect(existsSync(target)).toBe(false);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe('termwire serve refuses a bad shell or a busy port', () => {
  it('a --shell path that does not exist', () => expectRefusal(['--token-file', tokenFile(GOOD_TOKEN), '--shell', join(dir, 'no-such-shell')], /--shell \S+ is not an executable file/));
  it('a --shell that is not executable', () => expectRefusal(['--token-file', tokenFile(GOOD_TOKEN), '--shell', tokenFile('#!/bin/sh\n')], /--shell \S+ is not an executable file/));
  it('a --shell name not on $PATH', () => expectRefusal(['--token-file', tokenFile(GOOD_TOKEN), '--shell', 'no-such-shell-termwire'], /not an executable found on \$PATH/));
  it('a port already in use', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const { code, stderr } = await refusedServe(['--port', String(port), '--token-file', tokenFile(GOOD_TOKEN)]);
      expect(code).toBe(2);
      expect(stderr.trimEnd().split('\n')).toEqual([`termwire serve: port ${port} on 127.0.0.1 is already in use (EADDRINUSE); pick another with --port`]);
    } finally {
      busy.close();
    }
  });
});

describe('the token file it creates', () => {
  it('is a new regular file, mode 0600, with a token of 256 bits, read back by the same checks', async () => {
    const path = join(dir, `fresh-${++n}`, 'token');
    const serve = await startServe(['--token-file', path]);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(tokenBits(readToken(path))).toBeGreaterThanOrEqual(256);
    expect(readOrCreateToken(path)).toEqual({ token: readToken(path), created: false });
  });
});
