import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closePeerPool, codecPeer, idlePeerCount, startPeer } from '../../compat/journey/peer-pool.js';
import { PeerProcess } from '../../compat/journey/peer-process.js';
import { GATE_ACK_BATCH_BYTES, GATE_FLOW } from '../../compat/journey/journey-flow.js';
import { PEER_SESSION_ROLES } from '../../compat/peer/peer-ops.js';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';
import { DEFAULT_CLIENT_OPTIONS } from '../../src/client/options.js';

const root = join(import.meta.dirname, '..', '..');
afterEach(() => closePeerPool());

/** A real host peer of this build, as a journey starts one. */
const host = (sessions: boolean, args: string[] = []) => startPeer({ buildDir: root, role: 'host', sessions, args, label: 'new host' });

describe('long-lived peers (peer-pool.ts)', () => {
  it('this build says, in its codec hello, which roles serve sessions', async () => {
    const codec = await PeerProcess.start({ buildDir: root, role: 'codec', label: 'codec' });
    try {
      expect(codec.hello.sessionRoles).toEqual([...PEER_SESSION_ROLES]);
    } finally {
      await codec.stop();
    }
  });

  it('one process serves one pairing after another: each session a host of its own, with its own listener, and the process back in the pool between them', async () => {
    const first = await host(true);
    expect(idlePeerCount()).toBe(0);
    const { limits: firstLimits } = await first.call<{ limits: { detachedTerminalIdleMs: number } }>('limits');
    await first.stop();
    expect(idlePeerCount()).toBe(1);

    const second = await host(true, ['--detached-idle-ms', '1234']);
    expect(idlePeerCount(), 'the idle process was taken, not a new one started').toBe(0);
    expect(second.hello.url).not.toBe(first.hello.url);
    expect(second.hello.token).not.toBe(first.hello.token);
    const { limits } = await second.call<{ limits: { detachedTerminalIdleMs: number } }>('limits');
    expect(limits.detachedTerminalIdleMs, "the session's own arguments").toBe(1234);
    expect(firstLimits.detachedTerminalIdleMs).not.toBe(1234);
    await expect(first.call('limits'), 'a closed session answers nothing').rejects.toThrow(/new host: its session is closed; cannot limits/);
    await second.stop();
    expect(idlePeerCount()).toBe(1);
  });

  it("a host's state holds its whole input log, or what was added past what the caller holds", async () => {
    const peer = await host(true);
    await expect(peer.call('state'), 'asked for no part: the whole log').resolves.toMatchObject({ inputLog: '' });
    const fromStart = await peer.call<Record<string, unknown>>('state', { inputLogFrom: 0 });
    expect(fromStart).toMatchObject({ inputLogFrom: 0, inputLogAdded: '' });
    expect(fromStart).not.toHaveProperty('inputLog');
    await expect(peer.call('state', { inputLogFrom: 5 }), 'past its end: the whole log').resolves.toMatchObject({ inputLog: '' });
    await peer.stop();
  });

  it("a host session takes the gate's flow limits, and refuses any other limit", async () => {
    const peer = await host(true, ['--flow-limits', JSON.stringify(GATE_FLOW)]);
    const { limits } = await peer.call<{ limits: Record<string, number> }>('limits');
    expect(Object.fromEntries(Object.keys(GATE_FLOW).map((name) => [name, limits[name]]))).toEqual(GATE_FLOW);
    await peer.stop();
    await expect(host(true, ['--flow-limits', JSON.stringify({ ...GATE_FLOW, maxTerminals: 64 })])).rejects.toThrow(/new host: peer: --role host \(--detached-idle-ms a positive whole number, --flow-limits an object of the flow limits\)/);
  });

  it("a client session takes the gate's Ack batch, and refuses one that is not a positive whole number", async () => {
    const client = (args: string[]) => startPeer({ buildDir: root, role: 'client', sessions: true, args: ['--url', 'ws://127.0.0.1:9/nobody', '--token', 'none', ...args], label: 'new client' });
    const given = await client(['--ack-batch-bytes', String(GATE_ACK_BATCH_BYTES)]);
    expect(given.hello.ackBatchBytes).toBe(GATE_ACK_BATCH_BYTES);
    await given.stop();
    const unset = await client([]);
    expect(unset.hello.ackBatchBytes, 'the default where the run sets none').toBe(DEFAULT_CLIENT_OPTIONS.ackBatchBytes);
    await unset.stop();
    await expect(client(['--ack-batch-bytes', '0'])).rejects.toThrow(/new client: peer: .*--ack-batch-bytes a positive whole number/);
  });

  it('a build without sessions gets a process per peer, none kept', async () => {
    const peer = await host(false);
    expect(peer).toBeInstanceOf(PeerProcess);
    await peer.stop();
    expect(idlePeerCount()).toBe(0);
  });

  it('a session that cannot open gives its process up, and says why', async () => {
    await expect(host(true, ['--backend', 'teletype'])).rejects.toThrow(/new host: peer: --role host/);
    expect(idlePeerCount()).toBe(0);
  });

  it('two pairings at once never share a process', async () => {
    const [a, b] = await Promise.all([host(true), host(true)]);
    await Promise.all([a.stop(), b.stop()]);
    expect(idlePeerCount()).toBe(2);
    const [c, d] = await Promise.all([host(true), host(true)]);
    expect(idlePeerCount()).toBe(0);
    await Promise.all([c.stop(), d.stop()]);
  });
});

describe('shared codec peers (peer-pool.ts)', () => {
  it('every user of a build\'s codec gets the one process, which outlives each use until the pool closes', async () => {
    const options = { buildDir: root, role: 'codec' as const, label: 'new codec' };
    const [a, b] = await Promise.all([codecPeer(options), codecPeer(options)]);
    const frames = { frames: [] as Uint8Array[] };
    await a.stop();
    await expect(b.call('classify', frames), 'still running for the other user').resolves.toEqual([]);
    await b.stop();
    const c = await codecPeer(options);
    await expect(c.call('classify', frames)).resolves.toEqual([]);
    expect(c.hello.version).toBe(a.hello.version);
    await c.stop();
    await closePeerPool();
    await expect(c.call('classify', frames), 'stopped with the pool').rejects.toThrow(/new codec/);
  });

  it('books the process CPU once when uses overlap: a use stopped after another has only what came since', async () => {
    const options = { buildDir: root, role: 'codec' as const, label: 'new codec' };
    const [a, b] = await Promise.all([codecPeer(options), codecPeer(options)]);
    const frame = encodeFrame({ opcode: Op.Input, streamId: 1, seq: 1, payload: new Uint8Array(64) });
    for (let i = 0; i < 20; i++) await b.call('classify', { frames: Array.from({ length: 2000 }, () => frame) });
    await a.stop();
    await b.stop();
    expect(a.cpuMs, 'the first use to stop books the work both saw').toBeGreaterThan(100);
    expect(b.cpuMs).toBeLessThan(a.cpuMs / 4);
    await closePeerPool();
  });
});
