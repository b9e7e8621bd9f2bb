import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PEER_PROFILE_ENV, PeerProcess, peerProfileArgs } from '../../compat/journey/peer-process.js';
import { summariseProfiles } from '../../scripts/lib/cpu-profile-summary.js';

const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterEach(() => {
  delete process.env[PEER_PROFILE_ENV];
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('peer CPU profiles (TERMWIRE_PEER_CPU_PROFILE)', () => {
  it('start no profiler unless asked, and give each peer a directory of its own when asked', () => {
    expect(peerProfileArgs({ role: 'host', label: 'old host 0.2.0' }, {})).toEqual([]);
    const [first, second] = [0, 1].map(() => peerProfileArgs({ role: 'host', label: 'old host 0.2.0' }, { [PEER_PROFILE_ENV]: '/tmp/p' }));
    expect(first![0]).toBe('--cpu-prof');
    expect(first![1]).toMatch(/^--cpu-prof-dir=\/tmp\/p\/host-old-host-0\.2\.0-\d+$/);
    expect(second![1]).not.toBe(first![1]);
    // A peer runs in its build's directory: a relative directory is the gate's, made absolute.
    expect(peerProfileArgs({ role: 'codec', label: 'new codec' }, { [PEER_PROFILE_ENV]: 'prof' })[1]).toMatch(new RegExp(`^--cpu-prof-dir=${resolve('prof')}/codec-new-codec-\\d+$`));
  });

  it('a real peer leaves its profile when it stops, and peer-profile sums it by role', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'termwire-peer-profile-'));
    dirs.push(dir);
    process.env[PEER_PROFILE_ENV] = dir;
    const codec = await PeerProcess.start({ buildDir: root, role: 'codec', label: 'new codec' });
    await codec.stop();
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^codec-new-codec-\d+$/)]);
    const [codecCost] = summariseProfiles(dir, 5);
    expect(codecCost).toMatchObject({ group: 'codec', peers: 1 });
    expect(codecCost!.profiles).toBeGreaterThanOrEqual(1);
    expect(codecCost!.ms).toBeGreaterThan(0);
    expect(codecCost!.top.length).toBeGreaterThan(0);

    // A peer killed while it wrote its profile leaves half a file: left out and counted, the rest still summed.
    mkdirSync(join(dir, 'host-old-host-99'));
    writeFileSync(join(dir, 'host-old-host-99', 'CPU.1.cpuprofile'), '{"nodes":[{"id":1,');
    expect(summariseProfiles(dir, 5).find((g) => g.group === 'host')).toMatchObject({ peers: 1, profiles: 0, unreadable: 1, ms: 0 });
    expect(summariseProfiles(dir, 5).find((g) => g.group === 'codec')).toMatchObject({ unreadable: 0 });

    const printed = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'peer-profile.ts'), dir, '--top', '3'], { encoding: 'utf8' });
    expect(printed).toMatch(/^codec: \d+\.\d\d CPU-s sampled in 1 peer\(s\), \d+ thread profile\(s\)\n/);
    expect(printed).toContain('host: 0.00 CPU-s sampled in 1 peer(s), 0 thread profile(s), 1 unreadable and left out');
  });

  it('peer-profile exits 2 naming the variable when the directory holds no profile', () => {
    const dir = mkdtempSync(join(tmpdir(), 'termwire-peer-profile-'));
    dirs.push(dir);
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'peer-profile.ts'), dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      ({ status, stderr } = e as { status: number; stderr: string });
    }
    expect(status).toBe(2);
    expect(stderr).toContain(`TERMWIRE_PEER_CPU_PROFILE=${dir}`);
  });
});
