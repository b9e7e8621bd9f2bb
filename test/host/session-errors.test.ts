import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

let testHost: TestHost;
afterEach(async () => {
  expect(testHost.host.counters.internalErrors).toBe(0);
  await testHost.close();
});

async function subscribed(peer: RawPeer, streamId: number, terminal: string): Promise<void> {
  const before = peer.snapshots(streamId).length;
  peer.subscribe(streamId, terminal, { capabilities: { ackOutput: 1, outputPause: 1, writeUnavailable: 1 } });
  await peer.waitFor(() => peer.snapshots(streamId).length > before, `snapshot on stream ${streamId}`);
}

/** Proves the connection still works: input reaches the terminal and its echo comes back. */
async function stillWorks(peer: RawPeer, streamId: number, backend: ScriptBackend, word: string): Promise<void> {
  peer.send('Input', streamId, `${word}\r`);
  await peer.waitFor(() => peer.outputText(streamId).includes(`ran: ${word}`), `echo of ${word} on stream ${streamId}`);
  expect(backend.inputLog().endsWith(`${word}\r`)).toBe(true);
}

describe('host sessions over a real WebSocket', () => {
  it('keeps two streams on one connection isolated', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a', 'b') });
    const peer = await testHost.connect();
    await subscribed(peer, 1, 'a');
    await subscribed(peer, 2, 'b');
    expect(peer.snapshots(1)[0]!.text).toContain('terminal a');
    expect(peer.snapshots(2)[0]!.text).toContain('terminal b');
    peer.send('Input', 1, 'only-a\r');
    await peer.waitFor(() => peer.outputText(1).includes('ran: only-a'), 'a runs only-a');
    const b = testHost.host.terminal('b')!.backend as ScriptBackend;
    b.emit('from-b');
    await peer.waitFor(() => peer.outputText(2).includes('from-b'), 'b output on stream 2');
    expect(peer.outputText(2)).not.toContain('only-a');
    expect(peer.outputText(1)).not.toContain('from-b');
    expect(b.inputLog()).toBe('');
    expect((testHost.host.terminal('a')!.backend as ScriptBackend).inputLog()).toBe('only-a\r');
  });

  it('refuses a frame on a stream the connection does not own, even one another connection owns', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const owner = await testHost.connect();
    const other = await testHost.connect();
    await subscribed(owner, 7, 'a');
    other.send('Input', 7, 'intruder\r');
    await other.waitFor(() => other.errors(7).length === 1, 'Error on stream 7 for the intruder');
    expect(other.errors(7)[0]).toMatch(/^STREAM_NOT_OWNED: Input \(7\) on stream 7/);
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;
    expect(a.inputLog()).toBe('');
    await stillWorks(owner, 7, a, 'mine');
  });

  it('answers each bad frame with its Error code and keeps the connection working', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const peer = await testHost.connect();
    await subscribed(peer, 1, 'a');
    const a = testHost.host.terminal('a')!.backend as ScriptBackend;

    peer.sendRaw(encodeFrame({ opcode: 200, streamId: 1, seq: 5 }));
    await peer.waitFor(() => peer.errors(1).length === 1, 'Error for opcode 200');
    expect(peer.errors(1)[0]).toMatch(/^UNKNOWN_OPCODE: opcode 200 /);
    expect(testHost.host.counters.unknownOpcodes).toBe(1);
    await stillWorks(peer, 1, a, 'after-unknown');

    peer.sendRaw(encodeFrame({ opcode: Op.Resize, streamId: 1, payload: new TextEncoder().encode('{"cols": 10,') }));
    await peer.waitFor(() => peer.errors(1).length === 2, 'Error for malformed JSON');
    expect(peer.errors(1)[1]).toMatch(/^BAD_FRAME: BAD_JSON: /);
    await stillWorks(peer, 1, a, 'after-json');

    peer.sendRaw(Uint8Array.of(0x74, 1, 7));
    await peer.waitFor(() => peer.errors(0).length === 1, 'Error for a 3-byte frame');
    expect(peer.errors(0)[0]).toMatch(/^BAD_FRAME: FRAME_TOO_SHORT: frame of 3 bytes < header of 16 bytes/);

    peer.subscribe(2, 'nope');
    await peer.waitFor(() => peer.errors(2).length === 1, 'Error for an unknown terminal');
    expect(peer.errors(2)[0]).toBe("TERMINAL_NOT_FOUND: no terminal named 'nope'");

    peer.subscribe(1, 'a');
    await peer.waitFor(() => peer.errors(0).length === 2, 'Error for a stream id in use');
    expect(peer.errors(0)[1]).toMatch(/^STREAM_IN_USE: stream 1 /);
    expect(peer.snapshots(1)).toHaveLength(1); // the live stream was not restarted
    await stillWorks(peer, 1, a, 'after-in-use');

    peer.send('Output', 1, 'backwards');
    await peer.waitFor(() => peer.errors(1).length === 3, 'Error for a host-to-client opcode');
    expect(peer.errors(1)[2]).toMatch(/^WRONG_DIRECTION: Output \(1\)/);

    peer.send('Unsubscribe', 1, undefined);
    await peer.waitFor(() => peer.on(1, Op.Metadata).some((f) => peer.json(f).type === 'unsubscribed'), 'unsubscribed event');
    peer.send('Input', 1, 'late\r');
    await peer.waitFor(() => peer.errors(1).length === 4, 'Error for input after unsubscribe');
    expect(peer.errors(1)[3]).toMatch(/^NOT_SUBSCRIBED: Input \(7\) on stream 1/);
    expect(a.inputLog()).not.toContain('late');

    await subscribed(peer, 3, 'a');
    await stillWorks(peer, 3, a, 'after-all');
    expect(testHost.host.counters.badFrames).toBe(3);
  });

  it('echoes only capabilities both sides support, and omits the echo when the client advertised none', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a'), capabilities: { ackOutput: 1, writeUnavailable: 1 } });
    const peer = await testHost.connect();
    peer.subscribe(1, 'a', { capabilities: { ackOutput: 1, outputPause: 1, futureThing: 3 } });
    peer.subscribe(2, 'a');
    await peer.waitFor(() => peer.snapshots(1).length === 1 && peer.snapshots(2).length === 1, 'both snapshots');
    expect(peer.json(peer.on(1, Op.Metadata)[0]!).capabilities).toEqual({ ackOutput: 1 });
    expect(peer.json(peer.on(2, Op.Metadata)[0]!)).not.toHaveProperty('capabilities');
  });

  it('sends Resized to every stream on the terminal and title Metadata', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a') });
    const one = await testHost.connect();
    const two = await testHost.connect();
    await subscribed(one, 1, 'a');
    await subscribed(two, 5, 'a');
    one.send('Resize', 1, { cols: 100, rows: 30 });
    await two.waitFor(() => two.on(5, Op.Resized).length === 1, 'Resized on the other connection');
    expect(two.json(two.on(5, Op.Resized)[0]!)).toEqual({ cols: 100, rows: 30, reason: 'resize' });
    expect(testHost.host.terminal('a')!.screen.cols).toBe(100);
    (testHost.host.terminal('a')!.backend as ScriptBackend).emit('\x1b]0;my title\x07');
    await one.waitFor(() => one.on(1, Op.Metadata).some((f) => one.json(f).type === 'title'), 'title event');
    expect(one.on(1, Op.Metadata).map((f) => one.json(f)).find((e) => e.type === 'title')).toEqual({ type: 'title', title: 'my title' });
  });
});
