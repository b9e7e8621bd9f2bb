import { describe, expect, it } from 'vitest';
import { PtyBackend } from '../../src/host/pty-backend.js';

const RUNS = 20;
const BYTES = 300_000;

/** Runs `script` in bash on a real PTY; resolves with everything it printed and its exit code. */
function runToExit(script: string): Promise<{ output: string; exitCode: number | null }> {
  const backend = new PtyBackend({ command: 'bash', args: ['--noprofile', '--norc', '-c', script] });
  let output = '';
  backend.onData((data) => (output += data));
  return new Promise((resolve) => backend.onExit(({ exitCode }) => resolve({ output, exitCode })));
}

describe('a program that prints a lot and exits at once', () => {
  // Without reading the PTY to its end, libuv took the kernel's hangup for the end of the output and about half of these runs lost their last KBs.
  it(`delivers all of its output, the last byte too (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const { output, exitCode } = await runToExit(`head -c ${BYTES} /dev/zero | tr '\\0' a; printf END-$((${run}+1000))`);
      expect({ run, length: output.length, end: output.slice(-8), exitCode }).toEqual({ run, length: BYTES + 8, end: `END-${run + 1000}`, exitCode: 0 });
    }
  });
});
