/**
 * `npm run bench -- peers`: what the gate's peers cost per pairing, started
 * as a process per peer against long-lived peers that serve one pairing after
 * another (compat/journey/peer-pool.ts), side by side: the same short journey
 * (the detached-lifetime pass, new × new on this build) walked PAIRINGS times
 * each way, rounds interleaved. CPU is the peers' own (with the shells they
 * reaped), as the gate's cost line books it; the first long-lived pairing pays
 * its processes' start.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { hostHoldsBytes } from '../../compat/journey/journey-flow.js';
import { runDecision } from '../../compat/journey/run.js';
import { closePeerPool } from '../../compat/journey/peer-pool.js';
import { PeerProcess } from '../../compat/journey/peer-process.js';
import { DEFAULT_JOURNEY_OPTIONS, LIFETIME_PLAN, type PairingBuild, runPairing } from '../../compat/journey/run-pairing.js';
import type { Row } from './lib/row.js';

export const name = 'peers';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
/** Pairings walked each way, as a gate run walks a handful per pass. */
const PAIRINGS = 6;

export async function run(): Promise<Row[]> {
  const manifest = JSON.parse(execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'termwire.js'), 'manifest'], { encoding: 'utf8' }));
  const codec = await PeerProcess.start({ buildDir: REPO_ROOT, role: 'codec', label: 'codec' });
  try {
    const side: PairingBuild = { side: 'new', build: { dir: REPO_ROOT, version: codec.hello.version, commit: 'working tree', manifest }, codec, holdsBytes: await hostHoldsBytes(REPO_ROOT) };
    const decision = runDecision(LIFETIME_PLAN, side, side);
    const cpuMs = { perPeer: 0, longLived: 0 };
    for (let i = 0; i < PAIRINGS; i++) {
      for (const longLivedPeers of [false, true]) {
        const recording = await runPairing(side, side, { ...DEFAULT_JOURNEY_OPTIONS, longLivedPeers }, LIFETIME_PLAN, decision);
        const stalled = recording.steps.filter((s) => s.status === 'stalled');
        if (stalled.length) throw new Error(`peers bench: step ${stalled[0]!.name} stalled (${stalled[0]!.missing}); the figures would not compare like with like`);
        cpuMs[longLivedPeers ? 'longLived' : 'perPeer'] += recording.peerCpuMs ?? 0;
      }
    }
    const perPairing = (ms: number) => Math.round(ms / PAIRINGS) / 1000;
    return [
      { section: name, name: `a process per peer, ${PAIRINGS} lifetime pairings`, value: perPairing(cpuMs.perPeer), unit: 'CPU-s/pairing' },
      {
        section: name,
        name: `long-lived peers, ${PAIRINGS} lifetime pairings`,
        value: perPairing(cpuMs.longLived),
        unit: 'CPU-s/pairing',
        ratio: Math.round((cpuMs.perPeer / Math.max(1, cpuMs.longLived)) * 100) / 100,
        baseline: 'a process per peer (times cheaper)',
      },
    ];
  } finally {
    await closePeerPool();
    await codec.stop();
  }
}
