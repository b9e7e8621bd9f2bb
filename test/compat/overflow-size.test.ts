import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostHoldsBytes, overflowEmitBytes, RELEASED_OVERFLOW_EMIT_BYTES } from '../../compat/journey/overflow-size.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';

const MiB = 1024 * 1024;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A build dir whose dist holds only host option defaults, as a built release's does. */
function buildWithHostDefaults(host: Record<string, number> | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-holds-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist', 'src', 'host'), { recursive: true });
  if (host) writeFileSync(join(dir, 'dist', 'src', 'host', 'options.js'), `export const DEFAULT_HOST_OPTIONS = ${JSON.stringify(host)};\n`);
  return dir;
}

describe('the overflow step prints past what either host of the run holds', () => {
  it("reads each build's window and queue from its own dist, and prints 1 MiB past the larger", async () => {
    const released = await hostHoldsBytes(buildWithHostDefaults({ streamWindowMaxBytes: 2 * MiB, streamQueueMaxBytes: 4 * MiB }));
    const queuesMore = await hostHoldsBytes(buildWithHostDefaults({ streamWindowMaxBytes: 4 * MiB, streamQueueMaxBytes: 16 * MiB }));
    expect([released, queuesMore]).toEqual([6 * MiB, 20 * MiB]);
    expect(overflowEmitBytes([released, queuesMore])).toBe(21 * MiB);
    expect(overflowEmitBytes([released, released])).toBe(RELEASED_OVERFLOW_EMIT_BYTES);
  });

  it("falls back to what every release so far holds where a build's dist does not say", async () => {
    expect(await hostHoldsBytes(buildWithHostDefaults(undefined))).toBe(6 * MiB);
    expect(await hostHoldsBytes(buildWithHostDefaults({ streamQueueMaxBytes: 8 * MiB }))).toBe(10 * MiB);
  });

  it("this build's own defaults are what it holds", async () => {
    expect(await hostHoldsBytes(join(import.meta.dirname, '..', '..'))).toBe(DEFAULT_HOST_OPTIONS.streamWindowMaxBytes + DEFAULT_HOST_OPTIONS.streamQueueMaxBytes);
  });
});
