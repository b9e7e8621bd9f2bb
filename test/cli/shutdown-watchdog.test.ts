import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module, in a process of its own whose main thread never yields again: only the watchdog thread can end it.
const built = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'shutdown-watchdog.js')).href;

function run(script: string): Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
}

describe('the shutdown watchdog', () => {
  it('kills a process whose main thread is stuck, and says why', { timeout: 30_000 }, async () => {
    const result = await run(`import { armShutdownWatchdog } from '${built}'; armShutdownWatchdog(200, 'test deadline'); for (;;) {}`);
    expect(result.signal).toBe('SIGKILL');
    expect(result.stderr).toBe('termwire: test deadline; the main thread did not finish it: killing the process\n');
  });

  it('lets a process that disarmed it in time exit on its own', async () => {
    const result = await run(`import { armShutdownWatchdog } from '${built}'; const disarm = armShutdownWatchdog(200, 'x'); disarm(); setTimeout(() => process.exit(3), 400);`);
    expect(result).toEqual({ code: 3, signal: null, stderr: '' });
  });
});
