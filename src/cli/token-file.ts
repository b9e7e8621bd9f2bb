import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, realpathSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const DEFAULT_TOKEN_FILE = join(homedir(), '.termwire', 'token');

/** A token shorter than this (estimated from its alphabet) is refused. */
export const MIN_TOKEN_BITS = 128;

/** A token file larger than this is refused before a byte of it is read (a token is one line of a few dozen characters). */
export const MAX_TOKEN_FILE_BYTES = 4096;

/** Why a token file was refused; permanent once shipped, so scripts can tell the causes apart. */
export const TOKEN_FILE_ERROR_CODES = {
  TOKEN_FILE_MISSING: 'no file at the path',
  TOKEN_FILE_SYMLINK: 'the path is a symbolic link',
  TOKEN_FILE_SYMLINKED_PARENT: 'a directory up the path is a symbolic link (the real path differs)',
  TOKEN_FILE_NOT_REGULAR: 'not a regular file (a directory, a FIFO, a device)',
  TOKEN_FILE_OWNER: 'the file is not owned by this user',
  TOKEN_FILE_MODE: 'others can read or write the file',
  TOKEN_FILE_HARD_LINKS: 'the file has another name',
  TOKEN_FILE_DIRECTORY_OWNER: 'a directory up the path is owned by someone other than this user or root',
  TOKEN_FILE_DIRECTORY_MODE: 'a directory up the path is group or world writable (the sticky bit does not excuse it)',
  TOKEN_FILE_TOO_LARGE: 'the file is larger than MAX_TOKEN_FILE_BYTES',
  TOKEN_FILE_LINES: 'the file holds more than one line',
  TOKEN_FILE_EMPTY: 'the file holds no token',
  TOKEN_FILE_WEAK: 'the token is shorter than MIN_TOKEN_BITS',
  TOKEN_FILE_UNREADABLE: 'the file cannot be opened, read or created',
} as const;

export type TokenFileErrorCode = keyof typeof TOKEN_FILE_ERROR_CODES;

/** The token file cannot be used; the message is one line for the user naming the path and the value, and the command exits 2. */
export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
  constructor(
    readonly code: TokenFileErrorCode,
    message: string,
  ) {
    super(message);
  }
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
 * symlink (the file's or a parent's), only a regular file owned by this user
 * that no one else can write or read, in directories up to the root that only
 * this user or root can write, at most MAX_TOKEN_FILE_BYTES (checked before
 * reading), one line, holding at least MIN_TOKEN_BITS. Every refusal is a
 * TokenFileError with a stable code.
 */
export function readToken(path: string): string {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO at the path opens at once (and is refused as not a regular file) instead of waiting for a writer forever.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw openFailure(path, error);
  }
  try {
    const size = checkOwnership(path, fd);
    const token = oneLine(path, readAtMost(path, fd, size)).trim();
    if (!token) throw new TokenFileError('TOKEN_FILE_EMPTY', `token file ${path} is empty`);
    const bits = tokenBits(token);
    if (bits < MIN_TOKEN_BITS) throw new TokenFileError('TOKEN_FILE_WEAK', `token in ${path} is too short: about ${bits} bits < ${MIN_TOKEN_BITS} (delete the file and let termwire serve write a new one)`);
    return token;
  } catch (error) {
    if (error instanceof TokenFileError) throw error;
    throw new TokenFileError('TOKEN_FILE_UNREADABLE', `token file ${path} cannot be read: ${errno(error) ?? (error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** The file's bytes, never more than MAX_TOKEN_FILE_BYTES however it grows after fstat. */
function readAtMost(path: string, fd: number, size: number): string {
  const buffer = Buffer.alloc(Math.min(size, MAX_TOKEN_FILE_BYTES) + 1);
  let length = 0;
  for (let n: number; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
  if (length > MAX_TOKEN_FILE_BYTES) throw tooLarge(path, length);
  return buffer.toString('utf8', 0, length);
}

function tooLarge(path: string, size: number): TokenFileError {
  return new TokenFileError('TOKEN_FILE_TOO_LARGE', `token file ${path} holds ${size} bytes > ${MAX_TOKEN_FILE_BYTES}; refusing to read it (a token is one line)`);
}

/** The single line of the file: one trailing newline is allowed, a second line would hold a token no client sends. */
function oneLine(path: string, text: string): string {
  const line = text.replace(/\r?\n$/, '');
  const lines = line.split(/\r?\n|\r/).length;
  if (lines > 1) throw new TokenFileError('TOKEN_FILE_LINES', `token file ${path} holds ${lines} lines; a token file holds exactly one`);
  return line;
}

/** The token in `path`, or a new random one created there (exclusively, never through a symlink), mode 0600. */
export function readOrCreateToken(path: string): { token: string; created: boolean } {
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new TokenFileError('TOKEN_FILE_UNREADABLE', `the directory of token file ${path} cannot be created: ${errno(error) ?? (error as Error).message}`);
  }
  // Checked before creating: a token written where it will be refused at the next start helps no one.
  checkDirectories(path, process.getuid?.(), dirname);
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    // O_EXCL fails on anything already there, a symlink (even a dangling one) included: read it under the checks.
    if (errno(error) === 'EEXIST') return { token: readToken(path), created: false };
    throw new TokenFileError('TOKEN_FILE_UNREADABLE', `token file ${path} cannot be created: ${errno(error) ?? (error as Error).message}`);
  }
  const token = randomBytes(32).toString('base64url');
  try {
    writeSync(fd, token + '\n');
  } finally {
    closeSync(fd);
  }
  return { token, created: true };
}

function openFailure(path: string, error: unknown): TokenFileError {
  switch (errno(error)) {
    case 'ENOENT':
      return new TokenFileError('TOKEN_FILE_MISSING', `token file ${path} does not exist (termwire serve writes one; pass --token-file to use another)`);
    case 'ELOOP':
      return new TokenFileError('TOKEN_FILE_SYMLINK', `token file ${path} is a symbolic link; refusing it (point --token-file at the file itself)`);
    case 'EACCES':
      return new TokenFileError('TOKEN_FILE_UNREADABLE', `token file ${path} is not readable by this user`);
    default:
      return new TokenFileError('TOKEN_FILE_UNREADABLE', `token file ${path} cannot be opened: ${errno(error) ?? (error as Error).message}`);
  }
}

/** Checks the open file and every directory above it; returns the file's size. */
function checkOwnership(path: string, fd: number): number {
  const stat = fstatSync(fd);
  if (!stat.isFile()) throw new TokenFileError('TOKEN_FILE_NOT_REGULAR', `token file ${path} is not a regular file`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) throw new TokenFileError('TOKEN_FILE_OWNER', `token file ${path} is owned by uid ${stat.uid}, not by this user (uid ${uid}); refusing it`);
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0) throw new TokenFileError('TOKEN_FILE_MODE', `token file ${path} has mode 0${mode.toString(8)}: others can read or write it; run chmod 600 ${path}`);
  // Another name for the same file may sit where others can reach it: one name, one file.
  if (stat.nlink > 1) throw new TokenFileError('TOKEN_FILE_HARD_LINKS', `token file ${path} has ${stat.nlink} hard links: another name can read or replace it; refusing it (copy the token into a file of its own)`);
  // Before reading: a sparse file of gigabytes must not be read to learn it is too large.
  if (stat.size > MAX_TOKEN_FILE_BYTES) throw tooLarge(path, stat.size);
  checkDirectories(path, uid);
  return stat.size;
}

/**
 * As sshd's StrictModes: every directory from the file's up to the root is a
 * real directory (no symlink on the way: the real path is the path), owned by
 * this user or root, and writable by no one else. As in sshd the sticky bit
 * is no excuse: it guards names already taken, not the ones a token path
 * still needs, which another user of /tmp can take first.
 */
function checkDirectories(path: string, uid: number | undefined, resolved: (absolute: string) => string = (p) => p): void {
  const absolute = resolve(path);
  let real: string;
  try {
    // Before the file exists only its directory can be resolved.
    real = realpathSync(resolved(absolute));
  } catch (error) {
    throw new TokenFileError('TOKEN_FILE_UNREADABLE', `token file ${path} cannot be resolved: ${errno(error) ?? (error as Error).message}`);
  }
  if (real !== resolved(absolute)) throw new TokenFileError('TOKEN_FILE_SYMLINKED_PARENT', `token file ${path} is reached through a symbolic link: its real path is ${real}; point --token-file at the real path`);
  const problem = unsafeDirectoryUpFrom(dirname(absolute), uid);
  if (problem) throw new TokenFileError(problem.code, `${problem.message} (holding token file ${path})`);
}

/** The first directory from `dir` up to the root that StrictModes would refuse, or undefined when all are safe. */
export function unsafeDirectoryUpFrom(dir: string, uid = process.getuid?.()): { code: TokenFileErrorCode; message: string } | undefined {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const stat = lstatSync(current);
    if (stat.isSymbolicLink()) return { code: 'TOKEN_FILE_SYMLINKED_PARENT', message: `the directory ${current} is a symbolic link` };
    if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) return { code: 'TOKEN_FILE_DIRECTORY_OWNER', message: `the directory ${current} is owned by uid ${stat.uid}, not by this user (uid ${uid}) or root; refusing it` };
    const mode = stat.mode & 0o7777;
    if ((mode & 0o022) !== 0) return { code: 'TOKEN_FILE_DIRECTORY_MODE', message: `the directory ${current} has mode 0${mode.toString(8)}: others can replace what is in it; run chmod go-w ${current}` };
    if (dirname(current) === current) return undefined;
  }
}
