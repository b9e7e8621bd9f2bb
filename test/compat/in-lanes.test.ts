import { describe, expect, it } from 'vitest';
import type { PairingRecording } from '../../compat/recording.js';
import { availableParallelism } from 'node:os';
import { Lanes } from '../../compat/journey/lanes.js';
import { journeyShape, runFourPairings } from '../../compat/journey/run.js';
import { DIFFERENT_CODE, type PlannedPairing, pairingPlanner } from '../../compat/journey/same-code.js';
import { DEFAULT_JOURNEY_OPTIONS, PAIRING_LANES_PER_CORE, type PairingBuild, PROTOCOL_1_RUN, SCRIPT_PLAN } from '../../compat/journey/run-pairing.js';
import type { StallWindows } from '../../compat/journey/stall-window.js';

describe('pairings in lanes', () => {
  it('keeps task order in the results and never runs more than the lanes at once', async () => {
    let running = 0;
    let most = 0;
    const task = (v: number) => async () => {
      running++;
      most = Math.max(most, running);
      await Promise.resolve();
      running--;
      return v;
    };
    expect(await new Lanes(2).run([task(1), task(2), task(3), task(4), task(5)])).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('starts nothing after a failure, and throws only once the running task has finished', async () => {
    const started: number[] = [];
    let releaseSecond!: () => void;
    let secondFinished = false;
    const second = new Promise<void>((resolve) => (releaseSecond = resolve));
    const run = new Lanes(2).run([
      async () => (started.push(1), Promise.reject(new Error('pairing 1 broke'))),
      async () => (started.push(2), await second, (secondFinished = true), 2),
      async () => (started.push(3), 3),
    ]);
    let settled = false;
    void run.catch(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    releaseSecond();
    await expect(run).rejects.toThrow('pairing 1 broke');
    expect(secondFinished).toBe(true);
    expect(started).toEqual([1, 2]);
  });
});

describe('lanes shared between walks', () => {
  it('holds two runs together to the lanes, and starts tasks in the order they were handed in', async () => {
    const lanes = new Lanes(2);
    let running = 0;
    let most = 0;
    const order: string[] = [];
    const task = (name: string) => async () => {
      order.push(name);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      return name;
    };
    const [first, second] = await Promise.all([lanes.run([task('a1'), task('a2'), task('a3')]), lanes.run([task('b1'), task('b2')])]);
    expect(first).toEqual(['a1', 'a2', 'a3']);
    expect(second).toEqual(['b1', 'b2']);
    expect(most).toBe(2);
    expect(order).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
  });

  it("stops only the failing run: the other run's tasks still start in the lanes its tasks leave", async () => {
    const lanes = new Lanes(1);
    const started: string[] = [];
    const failing = lanes.run([async () => (started.push('a1'), Promise.reject(new Error('a1 broke'))), async () => (started.push('a2'), 'a2')]);
    const other = lanes.run([async () => (started.push('b1'), 'b1')]);
    await expect(failing).rejects.toThrow('a1 broke');
    expect(await other).toEqual(['b1']);
    expect(started).toEqual(['a1', 'b1']);
  });

  it('is idle only once every run in it has finished: a confirming walk waits for the walks beside the first', async () => {
    const lanes = new Lanes(2);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = lanes.run([async () => held, async () => held, async () => undefined]);
    let idle = false;
    const idled = lanes.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    release();
    await running;
    await idled;
    expect(idle).toBe(true);
    await lanes.idle(); // and at once when nothing runs
  });

  it('leaves lanes shared with other walks out of what shapes a journey, as their size is', () => {
    const shape = (options: object) => JSON.stringify(journeyShape(SCRIPT_PLAN, PROTOCOL_1_RUN, { ...DEFAULT_JOURNEY_OPTIONS, ...options }));
    expect(shape({ sharedLanes: new Lanes(3) })).toBe(shape({}));
  });
});

describe('the four pairings around old × old', () => {
  const build = (side: 'old' | 'new') => ({ side }) as unknown as PairingBuild;
  const marked = (marker: string) => ({ peerErrors: [marker] }) as unknown as PairingRecording;
  const run = async (client: PairingBuild, host: PairingBuild, windows?: StallWindows) => marked(`${client.side}×${host.side}${windows ? ' with windows' : ''}`);
  const markers = (r: Awaited<ReturnType<typeof runFourPairings>>) => ({
    ...Object.fromEntries(Object.entries(r.recordings).map(([k, v]) => [k, v.peerErrors[0]])),
    alongside: r.alongside.map((a) => a.peerErrors[0]),
  });
  const options = { ...DEFAULT_JOURNEY_OPTIONS, concurrentPairings: 2 };
  /** A pairing planned on its own: it walks whatever the others run. */
  const alone = (walk: () => Promise<PairingRecording>): PlannedPairing => {
    let recording: Promise<PairingRecording> | undefined;
    return { walk: () => (recording = walk()), recording: () => recording! };
  };

  it('gives the skews stall windows from old × old, and keeps the PTY pass in order beside them', async () => {
    const result = await runFourPairings(build('old'), build('new'), options, run, [alone(async () => marked('pty 1')), alone(async () => marked('pty 2'))]);
    expect(markers(result)).toEqual({ newNew: 'new×new with windows', oldOld: 'old×old', oldClientNewHost: 'old×new with windows', newClientOldHost: 'new×old with windows', alongside: ['pty 1', 'pty 2'] });
  });

  it('runs new × new beside old × old when nothing else fills the lane, without windows', async () => {
    let finishOldOld!: () => void;
    const oldOldRunning = new Promise<void>((resolve) => (finishOldOld = resolve));
    const slowOldOld = async (client: PairingBuild, host: PairingBuild, windows?: StallWindows) => {
      if (client.side === 'old' && host.side === 'old') await oldOldRunning;
      else if (client.side === 'new' && host.side === 'new') {
        finishOldOld();
        await new Promise((resolve) => setImmediate(resolve)); // old × old's result is in before new × new frees its lane
      }
      return run(client, host, windows);
    };
    expect(markers(await runFourPairings(build('old'), build('new'), options, slowOldOld))).toMatchObject({ newNew: 'new×new', oldClientNewHost: 'old×new with windows', newClientOldHost: 'new×old with windows' });
  });

  it('gives every skew the windows of a cached old × old, even in lanes enough for all four at once', async () => {
    const result = await runFourPairings(build('old'), build('new'), { ...options, concurrentPairings: 4 }, run, [], async () => marked('cached old×old'));
    expect(markers(result)).toMatchObject({ newNew: 'new×new with windows', oldClientNewHost: 'old×new with windows', newClientOldHost: 'new×old with windows' });
  });

  it('starts the skews beside an old × old being recorded, without windows, rather than wait for it', async () => {
    let finishOldOld!: () => void;
    const oldOldRunning = new Promise<void>((resolve) => (finishOldOld = resolve));
    const started: string[] = [];
    const recordingOldOld = async (client: PairingBuild, host: PairingBuild, windows?: StallWindows) => {
      started.push(`${client.side}×${host.side}`);
      if (client.side === 'old' && host.side === 'old') await oldOldRunning;
      else if (started.length === 4) finishOldOld();
      return run(client, host, windows);
    };
    const result = await runFourPairings(build('old'), build('new'), { ...options, concurrentPairings: 4 }, recordingOldOld, [], (record) => record());
    expect(markers(result)).toMatchObject({ newNew: 'new×new', oldClientNewHost: 'old×new', newClientOldHost: 'new×old' });
  });

  it('takes old × old from the reference it is given', async () => {
    const result = await runFourPairings(build('old'), build('new'), options, run, [], async () => marked('cached old×old'));
    expect(result.recordings.oldOld.peerErrors).toEqual(['cached old×old']);
  });
});

describe('pairings that run the same code walk once', () => {
  const build = (side: 'old' | 'new') => ({ side, build: { version: side === 'old' ? '0.0.1' : '0.0.2' } }) as unknown as PairingBuild;
  const options = { ...DEFAULT_JOURNEY_OPTIONS, concurrentPairings: 2 };
  const walked: string[] = [];
  const run = async (client: PairingBuild, host: PairingBuild) => {
    walked.push(`${client.side}×${host.side}`);
    return { client: client.side, host: host.side, clientVersion: client.build.version, hostVersion: host.build.version, peerErrors: [`${client.side}×${host.side}`] } as unknown as PairingRecording;
  };

  it('with the client unchanged, walks old × old and one pairing with the new host, and labels the others as asked', async () => {
    walked.length = 0;
    const { recordings } = await runFourPairings(build('old'), build('new'), options, run, [], undefined, pairingPlanner({ client: true, host: false }));
    // The old client's walk is the one kept: only an old client's recording draws the snapshots it was sent.
    expect(walked.sort()).toEqual(['old×new', 'old×old']);
    expect(recordings.newClientOldHost.peerErrors).toEqual(['old×old']);
    expect(recordings.newNew.peerErrors).toEqual(['old×new']);
    expect([recordings.newClientOldHost.client, recordings.newClientOldHost.host, recordings.newClientOldHost.clientVersion]).toEqual(['new', 'old', '0.0.2']);
    expect([recordings.newClientOldHost.client, recordings.newClientOldHost.host, recordings.newClientOldHost.clientVersion]).toEqual(['new', 'old', '0.0.2']);
    expect([recordings.newNew.client, recordings.newNew.host]).toEqual(['new', 'new']);
  });

  it('with the host unchanged, walks old × old and one pairing with the new client', async () => {
    walked.length = 0;
    const { recordings } = await runFourPairings(build('old'), build('new'), options, run, [], undefined, pairingPlanner({ client: false, host: true }));
    expect(walked.sort()).toEqual(['new×old', 'old×old']);
    expect(recordings.oldClientNewHost.peerErrors).toEqual(['old×old']);
    expect(recordings.newNew.peerErrors).toEqual(['new×old']);
    expect([recordings.oldClientNewHost.client, recordings.oldClientNewHost.host]).toEqual(['old', 'new']);
  });

  it('walks all four when both roles changed', async () => {
    walked.length = 0;
    await runFourPairings(build('old'), build('new'), options, run, [], undefined, pairingPlanner(DIFFERENT_CODE));
    expect(walked.sort()).toEqual(['new×new', 'new×old', 'old×new', 'old×old']);
  });
});

describe('a recording reused under another label', () => {
  it("names the host's drops by the build it restarted as, and both versions", async () => {
    const { relabelled } = await import('../../compat/journey/same-code.js');
    const side = (s: 'old' | 'new') => ({ side: s, build: { version: s === 'old' ? '0.0.1' : '0.0.2' } });
    const walked = { client: 'new', host: 'new', clientVersion: '0.0.2', hostVersion: '0.0.2 then 0.0.1', ungatedSends: [{ role: 'host', side: 'old' }, { role: 'client', side: 'new' }] } as unknown as PairingRecording;
    const asked = relabelled(walked, side('new'), side('new'), side('new'));
    expect([asked.hostVersion, asked.ungatedSends?.map((u) => u.side)]).toEqual(['0.0.2 then 0.0.2', ['new', 'new']]);
    // An upgrade under the client: the host's drops are the build it restarted as, not the one it started as.
    const upgrade = relabelled(walked, side('old'), side('old'), side('new'));
    expect([upgrade.hostVersion, upgrade.ungatedSends?.map((u) => u.side)]).toEqual(['0.0.1 then 0.0.2', ['new', 'old']]);
  });
});

describe('how many pairings run at once', () => {
  it('is two per core by default, and does not shape the journey a reference is kept under', () => {
    expect(DEFAULT_JOURNEY_OPTIONS.concurrentPairings).toBe(PAIRING_LANES_PER_CORE * availableParallelism());
    const shape = (lanes: number) => JSON.stringify(journeyShape(SCRIPT_PLAN, PROTOCOL_1_RUN, { ...DEFAULT_JOURNEY_OPTIONS, concurrentPairings: lanes }));
    expect(shape(1)).toBe(shape(4));
    expect(JSON.stringify(journeyShape(SCRIPT_PLAN, PROTOCOL_1_RUN, { ...DEFAULT_JOURNEY_OPTIONS, clientPongDeadlineMs: 4_000 }))).not.toBe(shape(4));
  });
});
