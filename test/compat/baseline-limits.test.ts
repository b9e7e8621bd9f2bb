import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withBaselineLimits } from '../../compat/manifest/baseline-limits.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { WireManifest } from '../../src/manifest/manifest-schema.js';

const current = buildManifest('0.2.0');
const { limits: _none, ...oldManifest } = buildManifest('0.1.0') as WireManifest;
const dirs: string[] = [];

/** A build directory as an older release left it: its option defaults in its dist, its manifest without limits. */
function oldBuild(modules: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-old-limits-'));
  dirs.push(dir);
  for (const [file, source] of Object.entries(modules)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), source);
  }
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a baseline manifest without promised limits', () => {
  it("has them read from its dist's option defaults, by the current build's list of what is promised", async () => {
    const dir = oldBuild({
      'dist/src/host/options.js': 'export const DEFAULT_HOST_OPTIONS = Object.freeze({ scrollbackLines: 2000, json: { maxJsonDepth: 64 }, outputFrameBytes: 1 });',
      'dist/src/client/options.js': 'export const DEFAULT_CLIENT_OPTIONS = Object.freeze({ reconnectInitialDelayMs: 100 });',
    });
    const { manifest, note } = await withBaselineLimits(oldManifest, dir, current);
    expect(manifest.limits).toEqual({
      host: { scrollbackLines: { value: 2000, floor: current.limits!.host.scrollbackLines!.floor }, 'json.maxJsonDepth': { value: 64, floor: current.limits!.host['json.maxJsonDepth']!.floor } },
      client: { reconnectInitialDelayMs: { value: 100, floor: current.limits!.client.reconnectInitialDelayMs!.floor } },
    });
    expect(note).toMatch(/lists no promised limits; 3 of them were read/);
  });

  it('is left without them, and the note says LIMIT_LOWERED was not judged, when its dist has no option defaults', async () => {
    const { manifest, note } = await withBaselineLimits(oldManifest, oldBuild({ 'dist/other.js': '' }), current);
    expect(manifest.limits).toBeUndefined();
    expect(note).toMatch(/could not be read from its dist: LIMIT_LOWERED was not judged/);
  });

  it('keeps the limits its manifest lists', async () => {
    const listed = buildManifest('0.2.0');
    expect((await withBaselineLimits(listed, '/nonexistent', current)).manifest).toBe(listed);
  });
});
