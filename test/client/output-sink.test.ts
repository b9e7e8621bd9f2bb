import { afterEach, describe, expect, it } from 'vitest';
import type { TerminalClient } from '../../src/client/client.js';
import { waitFor } from '../helpers/wait-for.js';
import { clientWithFakeHost } from './harness.js';
import { ManualScheduler } from './manual-scheduler.js';

// A stream subscribed with an outputSink (as termwire attach is), over the SIMULATED FakeHost.
let client: TerminalClient | undefined;
afterEach(() => client?.close());

/** A live stream whose sink records each text and holds its `delivered` until the test calls it. */
async function streamWithSink(options: { ackBatchBytes: number; ackDelayMs: number }) {
  const scheduler = new ManualScheduler();
  const h = clientWithFakeHost({ ...options, scheduler });
  client = h.client;
  client.start();
  const sunk: string[] = [];
  const held: Array<() => void> = [];
  const stream = client.subscribe('t1', {
    outputSink: (text, delivered) => {
      sunk.push(text);
      held.push(delivered);
    },
  });
  await waitFor(() => stream.counters.snapshotsApplied === 1, { what: 'initial snapshot' });
  // Counted as the client sends them, so "none" is exact without waiting on the link.
  const acks = () => ({ sent: stream.counters.acksSent, bytes: stream.counters.ackedBytes });
  return { h, stream, scheduler, sunk, held, acks };
}

describe('a stream with an outputSink', () => {
  it('keeps no local screen: output goes to the sink and the output event, and screenLines() says why it cannot answer', async () => {
    const { h, stream, sunk } = await streamWithSink({ ackBatchBytes: 1000, ackDelayMs: 4 });
    const seen: string[] = [];
    stream.on('output', ({ text }) => seen.push(text));
    await h.host.output('t1', 'héllo');
    await waitFor(() => stream.counters.outputApplied === 1, { what: 'output applied' });
    expect(sunk).toEqual(['héllo']);
    expect(seen).toEqual(['héllo']);
    expect(stream.rx.screen).toBeUndefined();
    await stream.whenIdle();
    expect(() => stream.screenLines()).toThrow(`stream ${stream.id} ('t1') has no local screen: it was subscribed with an outputSink`);
  });

  it('credits output only once the sink has delivered it, so the host window bounds what the sink holds', async () => {
    const { h, stream, scheduler, held, acks } = await streamWithSink({ ackBatchBytes: 10, ackDelayMs: 4 });
    await h.host.output('t1', 'x'.repeat(50));
    await waitFor(() => stream.counters.outputApplied === 1 && held.length === 1, { what: 'output handed to the sink, its delivery held' });
    scheduler.advance(1000);
    expect(acks()).toEqual({ sent: 0, bytes: 0 });
    held.splice(0).forEach((delivered) => delivered());
    expect(acks()).toEqual({ sent: 1, bytes: 50 });
    await waitFor(() => h.host.framesNamed('Ack').length === 1, { what: 'the Ack at the host' });
    expect(h.host.framesNamed('Ack').map((f) => f.payload)).toEqual([{ bytes: 50 }]);
  });

  it('credits an Output once when the sink calls delivered twice', async () => {
    const { h, stream, scheduler, held, acks } = await streamWithSink({ ackBatchBytes: 1000, ackDelayMs: 4 });
    await h.host.output('t1', 'x'.repeat(50));
    await waitFor(() => stream.counters.outputApplied === 1 && held.length === 1, { what: 'output handed to the sink' });
    const delivered = held[0]!;
    delivered();
    delivered();
    scheduler.advance(1000);
    expect(acks()).toEqual({ sent: 1, bytes: 50 });
  });

  it('sends no credit to a new connection for output the sink delivers after the old one died', async () => {
    const { h, stream, scheduler, held, acks } = await streamWithSink({ ackBatchBytes: 10, ackDelayMs: 4 });
    await h.host.output('t1', 'x'.repeat(50));
    await waitFor(() => held.length === 1, { what: 'output handed to the sink, its delivery held' });
    h.host.links[0]!.close('host dropped');
    await waitFor(() => client!.state === 'waitingToReconnect', { what: 'client waiting to reconnect' });
    scheduler.advance(100);
    await waitFor(() => stream.state === 'live' && stream.counters.snapshotsApplied === 2, { what: 'live again with the reconnect snapshot' });
    held.splice(0).forEach((delivered) => delivered());
    scheduler.advance(1000);
    expect(acks()).toEqual({ sent: 0, bytes: 0 });
  });

  it('says how much output a snapshot stood in for: the bytes between the last output applied and the snapshot (attach reports them)', async () => {
    const { h, stream } = await streamWithSink({ ackBatchBytes: 1000, ackDelayMs: 4 });
    const snapshots: Array<{ source: string | undefined; skippedBytes: number }> = [];
    stream.on('snapshot', ({ source, skippedBytes }) => snapshots.push({ source, skippedBytes }));
    await h.host.output('t1', 'seen');
    await waitFor(() => stream.counters.outputApplied === 1, { what: 'output applied' });
    // Output this stream never gets, as when the host dropped its overflowing queue.
    await h.host.output('t1', 'never sent é', { skipStream: stream.id });
    stream.requestSnapshot();
    await waitFor(() => snapshots.length === 1, { what: 'the snapshot that covers it' });
    expect(snapshots).toEqual([{ source: 'request', skippedBytes: new TextEncoder().encode('never sent é').length }]);
  });
});
