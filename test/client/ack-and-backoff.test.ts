import { afterEach, describe, expect, it } from 'vitest';
import { AckBatcher } from '../../src/client/ack-batcher.js';
import type { TerminalClient } from '../../src/client/client.js';
import { DEFAULT_CLIENT_OPTIONS } from '../../src/client/options.js';
import { backoffDelayMs } from '../../src/client/reconnect.js';
import { waitFor } from '../helpers/wait-for.js';
import { clientWithFakeHost } from './harness.js';
import { ManualScheduler } from './manual-scheduler.js';

describe('AckBatcher', () => {
  const make = () => {
    const scheduler = new ManualScheduler();
    const acks: number[] = [];
    const batcher = new AckBatcher({ ackBatchBytes: 1000, ackDelayMs: 4, scheduler }, (bytes) => acks.push(bytes));
    return { scheduler, acks, batcher };
  };

  it('sends one Ack as soon as the byte threshold is reached', () => {
    const { acks, batcher, scheduler } = make();
    batcher.consumed(600);
    expect(acks).toEqual([]);
    batcher.consumed(400);
    expect(acks).toEqual([1000]);
    expect(scheduler.pending).toBe(0);
  });

  it('sends what is pending ackDelayMs after the first unacked byte, not later bytes', () => {
    const { acks, batcher, scheduler } = make();
    batcher.consumed(10);
    scheduler.advance(3);
    batcher.consumed(5); // does not restart the delay
    expect(acks).toEqual([]);
    scheduler.advance(1);
    expect(acks).toEqual([15]);
    scheduler.advance(100);
    expect(acks).toEqual([15]);
  });

  it('discard() forgets pending credit and its timer', () => {
    const { acks, batcher, scheduler } = make();
    batcher.consumed(10);
    batcher.discard();
    scheduler.advance(100);
    expect(acks).toEqual([]);
  });
});

describe('backoffDelayMs', () => {
  const opts = { ...DEFAULT_CLIENT_OPTIONS, random: () => 0.5 };
  it('doubles from 100 ms and stops at 5 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((a) => backoffDelayMs(a, opts))).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  });
  it('spreads by the jitter fraction from the injected random', () => {
    expect(backoffDelayMs(0, { ...opts, random: () => 0 })).toBe(80);
    expect(backoffDelayMs(0, { ...opts, random: () => 0.999999 })).toBe(120);
    expect(backoffDelayMs(10, { ...opts, random: () => 0.999999 })).toBe(5000);
  });
});

// These talk to the SIMULATED FakeHost over in-process memory links.
let client: TerminalClient | undefined;

/** A subscribed stream over the simulated host whose screen holds each parse callback until the test runs it. */
async function streamWithHeldParses() {
  const scheduler = new ManualScheduler();
  const h = clientWithFakeHost({ ackBatchBytes: 10, ackDelayMs: 4, scheduler });
  client = h.client;
  client.start();
  const stream = client.subscribe('t1');
  await waitFor(() => stream.counters.snapshotsApplied === 1, { what: 'initial snapshot' });
  const parsed: Array<() => void> = [];
  const screen = stream.rx.screen!;
  const write = screen.write.bind(screen);
  screen.write = (text, onParsed) => write(text, () => parsed.push(() => onParsed?.()));
  return { h, stream, scheduler, parsed };
}

describe('client Ack batching', () => {
  afterEach(() => client?.close());

  it('acks at the byte threshold, and the rest after the delay', async () => {
    const scheduler = new ManualScheduler();
    const h = clientWithFakeHost({ ackBatchBytes: 100, ackDelayMs: 4, scheduler });
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await waitFor(() => stream.counters.snapshotsApplied === 1, { what: 'initial snapshot' });
    await h.host.output('t1', 'x'.repeat(60));
    await h.host.output('t1', 'y'.repeat(60));
    await h.host.output('t1', 'z'.repeat(30));
    await waitFor(() => stream.counters.outputFrames === 3, { what: 'three Output frames received' });
    const acksNow = () => h.host.framesNamed('Ack').map((f) => f.payload);
    await waitFor(() => acksNow().length === 1, { what: 'the threshold Ack' });
    expect(acksNow()).toEqual([{ bytes: 120 }]);
    // Output is credited once parsed: the delay starts when the screen has taken the last bytes.
    await stream.whenIdle();
    scheduler.advance(4);
    await waitFor(() => acksNow().length === 2, { what: 'the delayed Ack' });
    expect(acksNow()).toEqual([{ bytes: 120 }, { bytes: 30 }]);
  });

  it('credits output only once the screen has parsed it, so the window bounds a slow screen', async () => {
    const { h, stream, scheduler, parsed } = await streamWithHeldParses();
    await h.host.output('t1', 'x'.repeat(50));
    await waitFor(() => stream.counters.outputApplied === 1 && parsed.length === 1, { what: 'output received and parsed, its credit held' });
    scheduler.advance(1000);
    expect(h.host.framesNamed('Ack')).toEqual([]);
    parsed.splice(0).forEach((credit) => credit());
    await waitFor(() => h.host.framesNamed('Ack').length === 1, { what: 'the Ack once the screen parsed the output' });
    expect(h.host.framesNamed('Ack').map((f) => f.payload)).toEqual([{ bytes: 50 }]);
  });

  it('sends no Ack after Unsubscribe, even for output the screen parses later', async () => {
    const { h, stream, scheduler, parsed } = await streamWithHeldParses();
    await h.host.output('t1', 'x'.repeat(50));
    await waitFor(() => parsed.length === 1, { what: 'output parsed, its credit held' });
    // The screen finishes parsing while the stream is closing: Unsubscribe sent, the host's reply not in yet.
    void stream.unsubscribe();
    parsed.splice(0).forEach((credit) => credit());
    scheduler.advance(1000);
    await waitFor(() => stream.state === 'closed', { what: 'the unsubscribed reply' });
    expect(h.host.framesNamed('Ack')).toEqual([]);
  });

  it('sends no Ack to a host that did not echo ackOutput', async () => {
    const scheduler = new ManualScheduler();
    const h = clientWithFakeHost({ ackBatchBytes: 10, scheduler });
    h.host.hostCapabilities = { outputPause: 1 };
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await waitFor(() => stream.counters.snapshotsApplied === 1, { what: 'initial snapshot' });
    await h.host.output('t1', 'x'.repeat(50));
    await waitFor(() => stream.counters.outputApplied === 1, { what: 'output applied' });
    scheduler.advance(1000);
    stream.write('marker');
    await waitFor(() => h.host.inputOf('t1') === 'marker', { what: 'marker input' });
    expect(h.host.framesNamed('Ack')).toEqual([]);
  });
});
