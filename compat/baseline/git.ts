import { execa } from 'execa';
import { CompatError } from '../errors.js';

/** Runs git with an argument array (never a shell string) and returns trimmed stdout. */
export async function git(cwd: string, args: readonly string[], env?: Record<string, string>): Promise<string> {
  const result = await execa('git', args, { cwd, reject: false, ...(env ? { env } : {}), stripFinalNewline: true });
  if (result.exitCode !== 0) {
    throw new CompatError('GIT_FAILED', `git ${args.join(' ')} exited ${result.exitCode}: ${String(result.stderr).trim().split('\n').slice(-3).join(' | ')}`);
  }
  return String(result.stdout);
}

/** Like git(), but a failing command returns undefined instead of throwing. */
export async function gitMaybe(cwd: string, args: readonly string[]): Promise<string | undefined> {
  const result = await execa('git', args, { cwd, reject: false, stripFinalNewline: true });
  return result.exitCode === 0 ? String(result.stdout) : undefined;
}

export async function repoRoot(cwd: string): Promise<string> {
  const root = await gitMaybe(cwd, ['rev-parse', '--show-toplevel']);
  if (!root) throw new CompatError('NOT_A_REPO', `${cwd} is not inside a git checkout; run termwire compat from the project's clone`);
  return root;
}
