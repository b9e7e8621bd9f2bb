import { defineConfig } from 'vitest/config';
import { privateTempRoot } from './scripts/lib/private-temp.js';
import { SELF_TEST_LANES } from './test/compat/helpers/self-test-lanes.js';

function testTempDir(): Record<string, string> {
  try {
    return { TMPDIR: privateTempRoot() };
  } catch {
    return {};
  }
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'compat/**/*.test.ts'],
    // Hang guards, not speed checks: a shared CI runner under load runs these several times slower than a quiet one.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // PTYs, sockets and child processes: keep files in separate forks.
    pool: 'forks',
    // Two files at once (vitest's default on 2 cores is one): most files wait on processes and sockets,
    // so the rest of the suite runs beside the gate's long self-test instead of after it.
    maxWorkers: 2,
    // Concurrent tests within a file: the gate's self-test fixtures, one lane more than the cores (see the helper).
    maxConcurrency: SELF_TEST_LANES,
    // Token files live in temp dirs, and serve and attach refuse one under a directory others can write (a 1777 /tmp).
    // Where no private one can be had, the token tests say why; the rest of the suite runs as before.
    env: testTempDir(),
  },
});
