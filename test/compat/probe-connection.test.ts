import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { RecordingProxy } from '../../compat/journey/recording-proxy.js';
import { startPeer } from '../../compat/journey/peer-pool.js';
import { handmadeFrame, WIRE } from '../../compat/journey/wire-view.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestHost, TEST_TOKEN, type TestHost } from '../host/harness.js';

// A real host behind a real WebSocket server; the proxy's probe is the only peer.
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function probeOf(maxErrorRepliesPerSecond: number, maxSnapshotRequestsPerSecond?: number): Promise<{ proxy: RecordingProxy; host: TestHost }> {
  const host = await startTestHost({ limits: { maxErrorRepliesPerSecond, ...(maxSnapshotRequestsPerSecond ? { maxSnapshotRequestsPerSecond } : {}) }, terminals: () => new ScriptBackend() });
  cleanup.push(() => host.close());
  const proxy = new RecordingProxy();
  await proxy.listen();
  cleanup.push(() => proxy.close());
  proxy.connectTo({ url: host.server.url, token: TEST_TOKEN });
  proxy.step = 'limitsClosed';
  return { proxy, host };
}

const refused = (n: number) => Array.from({ length: n }, () => handmadeFrame(WIRE.opcode.Input, 919, 'x'));
const snapshotRequests = (n: number) => Array.from({ length: n }, () => handmadeFrame(WIRE.opcode.SnapshotRequest, 920, '{}'));
const endsASnapshot = (bytes: Uint8Array) => bytes[2] === WIRE.opcode.SnapshotEnd;

/** A probe subscribed to a terminal on stream 920, its first snapshot received. */
async function subscribedProbe(proxy: RecordingProxy) {
  const probe = await proxy.probe();
  probe.send(handmadeFrame(WIRE.opcode.Subscribe, 0, JSON.stringify({ streamId: 920, terminal: 'main' })));
  await waitFor(() => proxy.frames.some((f) => f.client === 'probe' && f.streamId === 920 && f.opcode === WIRE.opcode.SnapshotEnd), { what: "the snapshot answering the probe's Subscribe" });
  return probe;
}

const probeErrors = (proxy: RecordingProxy) => proxy.frames.filter((f) => f.client === 'probe' && f.direction === 'hostToClient').map((f) => Buffer.from(f.bytes.subarray(WIRE.headerBytes)).toString().split(':')[0]);

describe("the proxy's probe connection", () => {
  it('records the host answering a text message and a refused frame; a flood past the Error rate ends in the close the host gave, its replies counted', async () => {
    const { proxy, host } = await probeOf(20);
    const probe = await proxy.probe();
    probe.sendText('not a frame');
    probe.send(refused(1)[0]!);
    await waitFor(() => probeErrors(proxy).length === 2, { what: 'the answers to the text message and the refused frame' });
    expect(probeErrors(proxy)).toEqual(['TEXT_MESSAGE', 'STREAM_NOT_OWNED']);
    probe.sendFlood(refused(60));
    await waitFor(() => proxy.probeEnds.length === 1, { what: 'the end of the flood' });
    const [end] = proxy.probeEnds;
    expect(end).toMatchObject({ step: 'limitsClosed', outcome: 'closed', code: 1008 });
    expect(end!.reason).toMatch(/^ERROR_RATE: /);
    // The bucket held 20 and one reply went to the refused frame; a little may refill while the flood is read.
    expect(end!.answeredFrames).toBeGreaterThanOrEqual(19);
    expect(end!.answeredFrames).toBeLessThan(40);
    expect(probeErrors(proxy)).toHaveLength(2);
    expect(host.host.counters.limitCloses.ERROR_RATE).toBe(1);
  });

  it('ends a flood the host answers whole, frame by frame, as a connection kept open', async () => {
    const { proxy } = await probeOf(1_000);
    const probe = await proxy.probe();
    probe.sendFlood(refused(50));
    await waitFor(() => proxy.probeEnds.length === 1, { what: 'the end of the flood' });
    expect(proxy.probeEnds).toEqual([{ step: 'limitsClosed', connection: 1, outcome: 'stayedOpen', answeredFrames: 50 }]);
    // Once ended, the next step that asks gets a probe of its own.
    const again = await proxy.probe();
    expect([again === probe, again.connection]).toEqual([false, 2]);
  });

  it('ends a flood of snapshot requests past the snapshot rate in the close the host gave', async () => {
    const { proxy, host } = await probeOf(100, 5);
    (await subscribedProbe(proxy)).sendFlood(snapshotRequests(100), endsASnapshot);
    await waitFor(() => proxy.probeEnds.length === 1, { what: 'the end of the flood' });
    expect(proxy.probeEnds[0]).toMatchObject({ outcome: 'closed', code: 1008 });
    expect(proxy.probeEnds[0]!.reason).toMatch(/^SNAPSHOT_RATE: /);
    expect(host.host.counters.limitCloses.SNAPSHOT_RATE).toBe(1);
  });

  it('counts a flood answered whole by its answers only: a snapshot of several frames answers one request', async () => {
    const { proxy } = await probeOf(100, 1_000);
    let snapshotEnds = 0;
    (await subscribedProbe(proxy)).sendFlood(snapshotRequests(30), (bytes) => endsASnapshot(bytes) && ++snapshotEnds > 0);
    await waitFor(() => proxy.probeEnds.length === 1, { what: 'the end of the flood' });
    expect(proxy.probeEnds[0]).toMatchObject({ outcome: 'stayedOpen', answeredFrames: 30 });
    expect(snapshotEnds).toBe(30);
  });

  it('records the host refusing wrong tokens in a row with its HTTP status: the third answer no sooner than the delays the first two failures set (100 + 200 ms)', async () => {
    const { proxy } = await probeOf(100);
    proxy.step = 'wrongToken';
    await proxy.probeWrongToken();
    const [first, second, third] = proxy.probeEnds;
    expect([first, second]).toEqual([1, 2].map((connection) => ({ step: 'wrongToken', connection, outcome: 'refused', status: 401, answeredFrames: 0 })));
    expect(third).toMatchObject({ step: 'wrongToken', connection: 3, outcome: 'refused', status: 401, failuresBefore: 2 });
    // A lower bound the host's timers set, whatever the machine's load; the rule judges below half of it.
    expect(third!.sinceFirstAttemptMs).toBeGreaterThanOrEqual(150);
  });

  it('records a host that lets a wrong token in as admitted, and ends that connection', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const closed = new Promise<void>((resolve) => server.once('connection', (ws) => ws.once('close', () => resolve())));
    const proxy = new RecordingProxy();
    await proxy.listen();
    cleanup.push(() => proxy.close());
    proxy.connectTo({ url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 'any' });
    proxy.step = 'wrongToken';
    await proxy.probeWrongToken();
    expect(proxy.probeEnds.map(({ sinceFirstAttemptMs, failuresBefore, ...end }) => end)).toEqual([1, 2, 3].map((connection) => ({ step: 'wrongToken', connection, outcome: 'admitted', answeredFrames: 0 })));
    await closed;
  });

  it("gets the limit's own close code from the gate's host peer, whose link wrapper once dropped it (1001)", async () => {
    // The peer as the gate runs it: a process of this checkout's build.
    const peer = await startPeer({ buildDir: join(import.meta.dirname, '..', '..'), role: 'host', sessions: false, args: [], label: 'host peer' });
    cleanup.push(() => peer.stop());
    const { url, token } = peer.hello as unknown as { url: string; token: string };
    const proxy = new RecordingProxy();
    await proxy.listen();
    cleanup.push(() => proxy.close());
    proxy.connectTo({ url, token });
    proxy.step = 'limitsClosed';
    const probe = await proxy.probe();
    probe.sendFlood(refused(1_000));
    await waitFor(() => proxy.probeEnds.length === 1, { what: 'the end of the flood' });
    expect(proxy.probeEnds[0]).toMatchObject({ outcome: 'closed', code: 1008 });
  });
});
