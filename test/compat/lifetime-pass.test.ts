import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { drivableOps } from '../../compat/journey/drivable.js';
import { COMES_BACK_AFTER_MS, JOURNEY_DETACHED_LIFETIME_MS } from '../../compat/journey/lifetime-steps.js';
import { StepNotJudged } from '../../compat/journey/steps.js';
import { PeerProcess } from '../../compat/journey/peer-process.js';
import { hostHoldsBytes } from '../../compat/journey/journey-flow.js';
import { runDecision } from '../../compat/journey/run.js';
import { DEFAULT_JOURNEY_OPTIONS, LIFETIME_PLAN, type PairingBuild, runPairing } from '../../compat/journey/run-pairing.js';
import { CORE_STEPS } from '../../compat/journey/steps.js';
import type { PairingRecording } from '../../compat/recording.js';
import { stepsNotWalkedNotes } from '../../compat/report/skipped-steps.js';

const root = join(import.meta.dirname, '..', '..');
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => void (await Promise.all(cleanup.splice(0).map((f) => f()))));

async function thisBuild(): Promise<PairingBuild> {
  const manifest = JSON.parse(execFileSync(process.execPath, [join(root, 'bin', 'termwire.js'), 'manifest'], { encoding: 'utf8' }));
  const codec = await PeerProcess.start({ buildDir: root, role: 'codec', label: 'new codec' });
  cleanup.push(() => codec.stop());
  return { side: 'new', build: { dir: root, version: codec.hello.version, commit: 'working tree', manifest }, codec, holdsBytes: await hostHoldsBytes(root) };
}

describe('the detached-lifetime pass', () => {
  it('a host that keeps its promise: the client comes back halfway through the lifetime and finds the terminal it left', async () => {
    const side = await thisBuild();
    expect(side.codec.hello.hostArgs).toContain('detachedIdleMs');
    const ops = drivableOps(side.codec.hello, side.codec.hello);
    const rec = await runPairing(side, side, DEFAULT_JOURNEY_OPTIONS, LIFETIME_PLAN, { ...runDecision(LIFETIME_PLAN, side, side), ops, skipped: new Map() });
    expect(rec.steps.map((s) => [s.name, s.status]), JSON.stringify(rec.peerErrors)).toEqual([
      ['subscribe', 'ok'],
      ['initialSnapshot', 'ok'],
      ['input', 'ok'],
      ['backWithinLifetime', 'ok'],
      ['backAfterLifetime', 'ok'],
    ]);
    // Coming back after the host ended the detached terminal finds a new instance of it.
    const instances = rec.frames.filter((f) => f.opcodeName === 'Metadata' && (f.payload as { type?: string }).type === 'subscribed').map((f) => (f.payload as { instanceId?: string }).instanceId);
    expect(instances).toHaveLength(3);
    expect(instances[1]).toBe(instances[0]);
    expect(instances[2]).not.toBe(instances[0]);
    // The step is timed: it waited for the comeback, and that was inside the lifetime.
    expect(rec.steps[3]!.durationMs).toBeGreaterThanOrEqual(COMES_BACK_AFTER_MS);
    expect(COMES_BACK_AFTER_MS).toBeLessThan(JOURNEY_DETACHED_LIFETIME_MS);
  });

  it('a step that cannot be judged in this walk is recorded as skipped with why, not as a stall, and the report names it', async () => {
    const side = await thisBuild();
    const ops = drivableOps(side.codec.hello, side.codec.hello);
    const notJudged = {
      name: 'backWithinLifetime' as const,
      act: async () => {
        throw new StepNotJudged('the client came back 3100 ms after it left, past the lifetime');
      },
      done: () => 'never reached',
    };
    const plan = { ...LIFETIME_PLAN, steps: [CORE_STEPS.subscribe, notJudged] };
    const rec: PairingRecording = await runPairing(side, side, DEFAULT_JOURNEY_OPTIONS, plan, { ...runDecision(LIFETIME_PLAN, side, side), ops, skipped: new Map() });
    expect(rec.steps[1]).toMatchObject({ name: 'backWithinLifetime', status: 'skipped', reason: 'not judged: the client came back 3100 ms after it left, past the lifetime' });
    expect(stepsNotWalkedNotes([rec, { ...rec, client: 'old' }])).toEqual(['step backWithinLifetime not judged: the client came back 3100 ms after it left, past the lifetime (new client × new host, old client × new host)']);
  });
});
