import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait-for.js';

// Helpers for tests that run the real `node bin/termwire.js serve` (build first: npm run build).

const bin = join(import.meta.dirname, '..', '..', 'bin', 'termwire.js');

export interface ServeProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  readonly exited: Promise<number | string>;
}

const running = new Set<ChildProcess>();

/** SIGKILLs every serve a failed test left running (call in afterEach). */
export function killLeftoverServes(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

export function spawnServe(args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  const child = spawn(process.execPath, [bin, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PS1: '$ ', ...env } });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const out: string[] = [];
  const err: string[] = [];
  child.stdout!.on('data', (c: Buffer) => out.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => err.push(c.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => out.join(''), stderr: () => err.join(''), exited };
}

/** Starts serve on a free port and waits for the URL it prints. */
export async function startServe(args: string[], env?: NodeJS.ProcessEnv): Promise<ServeProcess & { url: string; port: number }> {
  const serve = spawnServe(['--port', '0', ...args], env);
  const url = /serving terminals on (ws:\S+)/;
  await waitFor(() => url.test(serve.stdout()), { what: `serve to print its URL; stderr: ${serve.stderr()}`, timeoutMs: 15_000 });
  const found = url.exec(serve.stdout())![1]!;
  return { ...serve, url: found, port: Number(new URL(found).port) };
}

/** How long a serve expected to refuse may run before it counts as started (and is killed). */
const REFUSAL_DEADLINE_MS = 10_000;

/** Runs serve to completion (it is expected to refuse to start); code 'still running' when it did not. */
export async function refusedServe(args: string[]): Promise<{ code: number | string; stderr: string; stdout: string }> {
  const serve = spawnServe(args);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([serve.exited, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still running'), REFUSAL_DEADLINE_MS)))]);
  clearTimeout(timer);
  if (code === 'still running') {
    serve.child.kill('SIGKILL');
    await serve.exited;
  }
  return { code, stderr: serve.stderr(), stdout: serve.stdout() };
}
