import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const DEFAULT_TOKEN_FILE = join(homedir(), '.termwire', 'token');

/** Reads the bearer token, trimmed; a missing or empty file is a usage error the caller reports. */
export function readToken(path: string): string {
  if (!existsSync(path)) throw new Error(`token file ${path} does not exist (termwire serve writes one; pass --token-file to use another)`);
  const token = readFileSync(path, 'utf8').trim();
  if (!token) throw new Error(`token file ${path} is empty`);
  return token;
}

/** The token in `path`, or a new random one written there readable only by this user. */
export function readOrCreateToken(path: string): { token: string; created: boolean } {
  if (existsSync(path)) return { token: readToken(path), created: false };
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  writeFileSync(path, token + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return { token, created: true };
}
