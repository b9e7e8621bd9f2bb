import { afterEach, describe, expect, it, vi } from 'vitest';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { waitFor } from '../helpers/wait-for.js';

// Issue 41: at shutdown after an input flood, node-pty printed `Unhandled pty
// write error EBADF`: its queue of input the program never read went on being
// written to a PTY that was closing.

describe('PtyBackend at shutdown after an input flood', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes nothing more once it is killed: no EBADF reaches stderr, and later input is refused', async () => {
    const errors: unknown[][] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
    const backends = Array.from({ length: 4 }, () => new PtyBackend({ command: 'sleep', args: ['30'] }));
    for (const backend of backends) {
      // sleep never reads: past the kernel's few KiB, node-pty queues the rest and retries on every turn.
      for (let i = 0; i < 64; i++) expect(backend.write('x'.repeat(16 * 1024))).toBe('written');
      expect(backend.queuedInputBytes()).toBeGreaterThan(0);
    }
    for (const backend of backends) backend.kill(200);
    // What node-pty would go on retrying into a closing PTY (the EBADF came from those retries, in about 1 run of 4 here).
    for (const backend of backends) expect(backend.queuedInputBytes()).toBe(0);
    for (const backend of backends) expect(backend.write('late')).toBe('refused');
    await waitFor(() => backends.every((b) => b.exited), { what: 'every PTY to exit', timeoutMs: 10_000 });
    // node-pty retries a queued write on the next turns; give them a few turns to show up.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(errors.map((args) => String(args[0]))).toEqual([]);
  });

  it('prints nothing when a program exits on its own with input it never read', async () => {
    const errors: unknown[][] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
    const backends = Array.from({ length: 8 }, () => new PtyBackend({ command: 'sleep', args: ['0.3'] }));
    for (const backend of backends) for (let i = 0; i < 64; i++) backend.write('x'.repeat(16 * 1024));
    await waitFor(() => backends.every((b) => b.exited), { what: 'every program to exit', timeoutMs: 10_000 });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    // node-pty printed `Unhandled pty write error` for each (EIO or EBADF) in 3 runs of 3.
    expect(errors.map((args) => String(args[0]))).toEqual([]);
    expect(backends.every((b) => b.queuedInputBytes() === 0)).toBe(true);
  });
});
