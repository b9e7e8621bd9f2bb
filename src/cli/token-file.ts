import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const DEFAULT_TOKEN_FILE = join(homedir(), '.termwire', 'token');

/** A token shorter than this (estimated from its alphabet) is refused. */
export const MIN_TOKEN_BITS = 128;

/** The token file cannot be used; the message is one line for the user, and the command exits 2. */
export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/** Bits per character of the smallest usual alphabet holding every character of the token. */
const ALPHABETS: ReadonlyArray<{ readonly pattern: RegExp; readonly bitsPerChar: number }> = [
  { pattern: /^[0-9a-fA-F]+$/, bitsPerChar: 4 },
  { pattern: /^[A-Za-z0-9+/=_-]+$/, bitsPerChar: 6 },
];
const PRINTABLE_ASCII_BITS = Math.log2(95);

/** An upper bound on the token's strength: what its length allows in its alphabet. */
export function tokenBits(token: string): number {
  const alphabet = ALPHABETS.find((a) => a.pattern.test(token));
  return Math.floor([...token].length * (alphabet?.bitsPerChar ?? PRINTABLE_ASCII_BITS));
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * Reads the bearer token as sshd's StrictModes reads keys: never through a
 * symlink, only a regular file owned by this user that no one else can write
 * or read, holding at least MIN_TOKEN_BITS. Every refusal is a TokenFileError.
 */
export function readToken(path: string): string {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO at the path opens at once (and is refused as not a regular file) instead of waiting for a writer forever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw new TokenFileError(openFailure(path, error));
  }
  try {
    checkOwnership(path, fd);
    const token = readFileSync(fd, 'utf8').trim();
    if (!token) throw new TokenFileError(`token file ${path} is empty`);
    const bits = tokenBits(token);
    if (bits < MIN_TOKEN_BITS) throw new TokenFileError(`token in ${path} is too short: about ${bits} bits < ${MIN_TOKEN_BITS} (delete the file and let termwire serve write a new one)`);
    return token;
  } catch (error) {
    if (error instanceof TokenFileError) throw error;
    throw new TokenFileError(`token file ${path} cannot be read: ${errno(error) ?? (error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** The token in `path`, or a new random one created there (exclusively, never through a symlink), mode 0600. */
export function readOrCreateToken(path: string): { token: string; created: boolean } {
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    // O_EXCL fails on anything already there, a symlink (even a dangling one) included: read it under the checks.
    if (errno(error) === 'EEXIST') return { token: readToken(path), created: false };
    throw new TokenFileError(`token file ${path} cannot be created: ${errno(error) ?? (error as Error).message}`);
  }
  const token = randomBytes(32).toString('base64url');
  try {
    writeSync(fd, token + '\n');
  } finally {
    closeSync(fd);
  }
  return { token, created: true };
}

function openFailure(path: string, error: unknown): string {
  switch (errno(error)) {
    case 'ENOENT':
      return `token file ${path} does not exist (termwire serve writes one; pass --token-file to use another)`;
    case 'ELOOP':
      return `token file ${path} is a symbolic link; refusing it (point --token-file at the file itself)`;
    case 'EACCES':
      return `token file ${path} is not readable by this user`;
    default:
      return `token file ${path} cannot be opened: ${errno(error) ?? (error as Error).message}`;
  }
}

function checkOwnership(path: string, fd: number): void {
  const stat = fstatSync(fd);
  if (!stat.isFile()) throw new TokenFileError(`token file ${path} is not a regular file`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw new TokenFileError(`token file ${path} is owned by uid ${stat.uid}, not by this user (uid ${uid}); refusing it`);
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0) throw new TokenFileError(`token file ${path} has mode 0${mode.toString(8)}: others can read or write it; run chmod 600 ${path}`);
  // Another name for the same file may sit where others can reach it: one name, one file.
  if (stat.nlink > 1) throw new TokenFileError(`token file ${path} has ${stat.nlink} hard links: another name can read or replace it; refusing it (copy the token into a file of its own)`);
  checkDirectory(path, uid);
}

/** As sshd's StrictModes: the directory holding the token is this user's (or root's), and no one else may write in it unless the sticky bit keeps them from replacing our file. */
function checkDirectory(path: string, uid: number | undefined): void {
  const dir = dirname(path);
  const stat = statSync(dir);
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) throw new TokenFileError(`the directory ${dir} of token file ${path} is owned by uid ${stat.uid}, not by this user (uid ${uid}) or root; refusing it`);
  const mode = stat.mode & 0o7777;
  if ((mode & 0o022) !== 0 && (mode & 0o1000) === 0) throw new TokenFileError(`the directory ${dir} of token file ${path} has mode 0${(mode & 0o777).toString(8)}: others can replace the file; run chmod go-w ${dir}`);
}
