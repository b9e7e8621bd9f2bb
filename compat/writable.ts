import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CompatError, type CompatErrorCode } from './errors.js';

/** Why a path cannot be written, in words rather than errno names. */
const WHY: Record<string, string> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a directory',
};
const reason = (e: unknown) => WHY[(e as NodeJS.ErrnoException).code ?? ''] ?? (e as Error).message;

/** Creates `dir` if needed and proves it writable, before a run spends minutes that would be lost. */
export function ensureWritableDir(dir: string, code: CompatErrorCode, what: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new CompatError(code, `${what} ${resolve(dir)} cannot be created or written (${reason(e)})`);
  }
}

/** Proves `file` can be written: an existing writable file, or a new one in an existing writable directory. */
export function ensureWritableFile(file: string, code: CompatErrorCode, what: string): void {
  const path = resolve(file);
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error('it is a directory'), { code: 'EISDIR' });
    accessSync(statSync(path, { throwIfNoEntry: false }) ? path : dirname(path), constants.W_OK);
  } catch (e) {
    throw new CompatError(code, `${what} ${path} cannot be written (${reason(e)})`);
  }
}
