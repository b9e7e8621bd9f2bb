import { existsSync, realpathSync, readFileSync } from 'node:fs';
import { lstat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { trackProcessGroup } from '../cleanup.js';
import { CompatError, type CompatErrorCode } from '../errors.js';

/** Tunables of installing and building a checkout. */
export const BUILD_LIMITS = {
  /** Lines of a failing command's output quoted in the error. */
  logTailLines: 40,
  /** A stuck npm must not hang CI forever. */
  installTimeoutMs: 15 * 60_000,
  buildTimeoutMs: 10 * 60_000,
} as const;

export function tailLines(text: string, lines: number = BUILD_LIMITS.logTailLines): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Runs a long command in its own process group; resolves to its output, or throws `code` with the log tail. */
async function runLogged(code: CompatErrorCode, what: string, cwd: string, command: string, args: string[], timeout: number): Promise<string> {
  // Detached: its own process group, so an interrupt can stop the scripts npm spawned too.
  // The log level is set, not inherited: under `npm run -s` npm would print nothing, and a failure must say why (and be told apart).
  const child = execa(command, args, { cwd, all: true, reject: false, timeout, detached: true, env: { npm_config_fund: 'false', npm_config_audit: 'false', npm_config_loglevel: 'warn', CI: '1' } });
  const untrack = trackProcessGroup(child.pid);
  const result = await child.finally(untrack);
  const output = String(result.all ?? '');
  if (result.exitCode === 0 && !result.timedOut) return output;
  const why = result.timedOut ? `timed out after ${timeout} ms` : `exited ${result.exitCode ?? result.signal}`;
  throw Object.assign(new CompatError(code, `${what} failed in ${cwd}: \`${command} ${args.join(' ')}\` ${why}. Last ${BUILD_LIMITS.logTailLines} lines:\n${tailLines(output)}`), { output });
}

/** npm ci's refusal of a lockfile that misses an entry package.json implies (seen: an optional dependency the registry does not have). */
const LOCKFILE_OUT_OF_SYNC = /can only install packages when your package\.json and package-lock\.json .* are in sync/;

/**
 * Gives `dir` its own dependencies from its own lockfile. When its lockfile is
 * byte-identical to `reuseFrom`'s and that project has node_modules, it links
 * them instead: same lockfile, same tree, minutes saved.
 */
export type InstallOutcome = 'reused' | 'installed' | 'installed with npm install: npm ci refused the lockfile as out of sync' | 'none';

export async function installDependencies(dir: string, reuseFrom?: string): Promise<InstallOutcome> {
  if (!existsSync(join(dir, 'package.json'))) throw new CompatError('INSTALL_FAILED', `${dir} has no package.json`);
  const lock = join(dir, 'package-lock.json');
  if (reuseFrom && existsSync(lock)) {
    const theirs = join(reuseFrom, 'package-lock.json');
    const modules = join(reuseFrom, 'node_modules');
    if (existsSync(theirs) && existsSync(modules) && readFileSync(lock).equals(readFileSync(theirs))) {
      const target = join(dir, 'node_modules');
      // Link the real directory: a chain of links breaks when an intermediate checkout goes away.
      if (!(await lstat(target).catch(() => undefined))) await symlink(realpathSync(modules), target, 'dir');
      return 'reused';
    }
  }
  if (!existsSync(lock)) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: object; devDependencies?: object };
    if (!pkg.dependencies && !pkg.devDependencies) return 'none';
    throw new CompatError('INSTALL_FAILED', `${dir} has dependencies but no package-lock.json; npm ci needs the lockfile to install what that build pinned`);
  }
  try {
    await runLogged('INSTALL_FAILED', 'installing dependencies', dir, 'npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], BUILD_LIMITS.installTimeoutMs);
    return 'installed';
  } catch (error) {
    // A released lockfile that npm ci refuses still pins every version it holds: npm install
    // --no-save resolves from it and fills only the gap, so an old release stays comparable.
    if (!LOCKFILE_OUT_OF_SYNC.test((error as { output?: string }).output ?? '')) throw error;
    await runLogged('INSTALL_FAILED', 'installing dependencies (npm ci refused the lockfile)', dir, 'npm', ['install', '--no-save', '--prefer-offline', '--no-audit', '--no-fund'], BUILD_LIMITS.installTimeoutMs);
    return 'installed with npm install: npm ci refused the lockfile as out of sync';
  }
}

/**
 * True when installing `dir` has already built it: npm ci and npm install run
 * the project's own `prepare` script, and a prepare that runs `npm run build`
 * succeeded or the install would have failed. Building again would only
 * double the time.
 */
export function installAlreadyBuilt(dir: string, how: InstallOutcome): boolean {
  if (!how.startsWith('installed')) return false;
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return /(^|&&|;)\s*npm run build\s*($|&&|;)/.test(pkg.scripts?.prepare ?? '');
}

/** Builds `dir` with its own `npm run build`. */
export async function buildProject(dir: string): Promise<void> {
  await runLogged('BUILD_FAILED', 'building', dir, 'npm', ['run', 'build'], BUILD_LIMITS.buildTimeoutMs);
}
