import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_TOKEN_FILE_BYTES, readOrCreateToken, readToken, TokenFileError, tokenBits, type TokenFileErrorCode } from '../../src/cli/token-file.js';
import { killLeftoverServes, refusedServe, startServe } from './serve-process.js';

// `termwire serve` refuses to start, with one line and exit 2, on anything
// wrong with its token file, its shell or its port. Runs the built bin.
// tmpdir() is a private one (vitest.config.ts): a 1777 /tmp up the path is itself refused.

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
    return expectRefusal(['--token-file', path], /^termwire serve: the directory \S+ has mode 0777: others can replace what is in it; run chmod go-w \S+ \(holding token file \S+\)$/m);
  });
  it('a file in a directory owned by another user', async () => {
    if (process.getuid!() !== 0) return; // only root can give a directory away
    const theirs = join(dir, `theirs-${++n}`);
    mkdirSync(theirs, { mode: 0o755 });
    const path = join(theirs, 'token');
    writeFileSync(path, GOOD_TOKEN, { mode: 0o600 });
    chownSync(theirs, 4242, 4242);
    await expectRefusal(['--token-file', path], /the directory \S+ is owned by uid 4242/);
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

/** readToken's refusal: its stable code and its one-line message. */
function refusal(path: string): { code: TokenFileErrorCode; message: string } {
  try {
    readToken(path);
  } catch (error) {
    if (error instanceof TokenFileError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`${path} was accepted`);
}

function subdirectory(parent: string, mode: number): string {
  const path = join(parent, `sub-${++n}`);
  mkdirSync(path);
  chmodSync(path, mode);
  return path;
}

describe('the token file is checked as sshd StrictModes checks it', () => {
  it('refuses a directory with the sticky bit that others can write (1777, like /tmp)', () => {
    const sticky = subdirectory(dir, 0o1777);
    writeFileSync(join(sticky, 'token'), GOOD_TOKEN, { mode: 0o600 });
    expect(refusal(join(sticky, 'token'))).toEqual({ code: 'TOKEN_FILE_DIRECTORY_MODE', message: `the directory ${sticky} has mode 01777: others can replace what is in it; run chmod go-w ${sticky} (holding token file ${join(sticky, 'token')})` });
  });
  it('refuses a 0700 directory inside a 0777 one: every directory up the path is checked', () => {
    const open = subdirectory(dir, 0o777);
    const mine = subdirectory(open, 0o700);
    writeFileSync(join(mine, 'token'), GOOD_TOKEN, { mode: 0o600 });
    expect(refusal(join(mine, 'token'))).toMatchObject({ code: 'TOKEN_FILE_DIRECTORY_MODE', message: expect.stringContaining(`the directory ${open} has mode 0777`) });
  });
  it('refuses a path through a symlinked parent, naming the real path', () => {
    const real = subdirectory(dir, 0o700);
    writeFileSync(join(real, 'token'), GOOD_TOKEN, { mode: 0o600 });
    const alias = join(dir, `alias-${n}`);
    symlinkSync(real, alias);
    expect(refusal(join(alias, 'token'))).toEqual({ code: 'TOKEN_FILE_SYMLINKED_PARENT', message: `token file ${join(alias, 'token')} is reached through a symbolic link: its real path is ${join(real, 'token')}; point --token-file at the real path` });
  });
  it('refuses a second line, and takes one line with or without its newline', () => {
    expect(refusal(tokenFile(`${GOOD_TOKEN}\nsecond`))).toMatchObject({ code: 'TOKEN_FILE_LINES', message: expect.stringMatching(/holds 2 lines; a token file holds exactly one$/) });
    expect(refusal(tokenFile(`${GOOD_TOKEN}\n\n`))).toMatchObject({ code: 'TOKEN_FILE_LINES' });
    expect(readToken(tokenFile(`${GOOD_TOKEN}\n`))).toBe(GOOD_TOKEN);
    expect(readToken(tokenFile(`${GOOD_TOKEN}\r\n`))).toBe(GOOD_TOKEN);
    expect(readToken(tokenFile(GOOD_TOKEN))).toBe(GOOD_TOKEN);
  });
  it('refuses a large file by its size before reading it (a 700 MB sparse file)', () => {
    const sparse = tokenFile(GOOD_TOKEN);
    truncateSync(sparse, 700_000_000);
    // The size fstat gives, not the MAX_TOKEN_FILE_BYTES + 1 a bounded read would stop at.
    expect(refusal(sparse)).toEqual({ code: 'TOKEN_FILE_TOO_LARGE', message: `token file ${sparse} holds 700000000 bytes > ${MAX_TOKEN_FILE_BYTES}; refusing to read it (a token is one line)` });
    expect(refusal(tokenFile('a'.repeat(MAX_TOKEN_FILE_BYTES + 1)))).toMatchObject({ code: 'TOKEN_FILE_TOO_LARGE' });
  });
  it('gives each old refusal its stable code', () => {
    expect(refusal(join(dir, 'no-such-file')).code).toBe('TOKEN_FILE_MISSING');
    expect(refusal(tokenFile(GOOD_TOKEN, 0o644)).code).toBe('TOKEN_FILE_MODE');
    expect(refusal(tokenFile('\n')).code).toBe('TOKEN_FILE_EMPTY');
    expect(refusal(tokenFile('0123456789abcdef')).code).toBe('TOKEN_FILE_WEAK');
    expect(refusal(dir).code).toBe('TOKEN_FILE_NOT_REGULAR');
  });
  it('does not create a token where it would refuse to read it', () => {
    const open = subdirectory(dir, 0o777);
    expect(() => readOrCreateToken(join(open, 'new', 'token'))).toThrow(/the directory \S+ has mode 0777/);
    expect(existsSync(join(open, 'new', 'token'))).toBe(false);
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
