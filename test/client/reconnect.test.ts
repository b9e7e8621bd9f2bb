import { afterEach, describe, expect, it } from 'vitest';
import { TerminalClient } from '../../src/client/client.js';
import { waitFor } from '../helpers/wait-for.js';
import { clientWithFakeHost } from './harness.js';
import { ManualScheduler } from './manual-scheduler.js';

// These talk to the SIMULATED FakeHost over in-process memory links; the
// reconnect timer runs on a ManualScheduler so "while disconnected" is exact.

let client: TerminalClient | undefined;
afterEach(() => client?.close());

describe('TerminalClient reconnect', () => {
  it('re-subscribes every stream, re-applies pause, and sends held input in order', async () => {
    const scheduler = new ManualScheduler();
    const h = clientWithFakeHost({ scheduler, ackDelayMs: 1_000_000 });
    client = h.client;
    const events: string[] = [];
    client.on('connected', () => events.push('connected'));
    client.on('disconnected', (e) => events.push(`disconnected: ${e.reason}`));
    client.on('reconnecting', (e) => events.push(`reconnecting #${e.attempt} in ${e.delayMs}ms`));
    client.on('reconnected', () => events.push('reconnected'));
    client.start();
    const shown = client.subscribe('t1');
    const hidden = client.subscribe('t2');
    await waitFor(() => shown.state === 'live' && hidden.state === 'live', { what: 'both streams live' });
    hidden.hide();
    shown.write('before ');
    await waitFor(() => h.host.inputOf('t1') === 'before ', { what: 'input before the drop' });

    h.host.links[0]!.close('host dropped');
    await waitFor(() => client!.state === 'waitingToReconnect', { what: 'client waiting to reconnect' });
    expect([shown.state, hidden.state]).toEqual(['pending', 'pending']);
    expect(shown.negotiated).toEqual({});
    shown.write('one ');
    shown.write('two ');
    shown.write('three');
    expect(shown.counters.inputHeld).toBe(3);
    await h.host.output('t1', 'produced while away');

    scheduler.advance(100);
    await waitFor(() => shown.state === 'live' && hidden.state === 'live', { what: 'both streams live again' });
    await waitFor(() => h.host.inputOf('t1') === 'before one two three', { what: 'held input delivered in order' });
    expect(events).toEqual(['connected', 'disconnected: peer closed: host dropped', 'reconnecting #1 in 100ms', 'reconnected']);

    const second = h.host.received.filter((f) => f.connection === 1);
    expect(second.filter((f) => f.name === 'Subscribe').map((f) => (f.payload as { streamId: number }).streamId)).toEqual([shown.id, hidden.id]);
    expect(second.filter((f) => f.name === 'SetOutputPaused')).toMatchObject([{ streamId: hidden.id, payload: { paused: true } }]);
    const shownFrames = second.filter((f) => f.streamId === shown.id || (f.name === 'Subscribe' && (f.payload as { streamId: number }).streamId === shown.id));
    expect(shownFrames.map((f) => f.name)).toEqual(['Subscribe', 'Input', 'Input', 'Input']);

    await waitFor(() => shown.counters.snapshotsApplied === 2, { what: 'the reconnect snapshot' });
    await shown.whenIdle();
    expect(shown.screenLines()[0]).toBe('produced while away');
  });

  it('forgets what the old host echoed: after reconnecting to an older host, hide() sends nothing', async () => {
    const scheduler = new ManualScheduler();
    const h = clientWithFakeHost({ scheduler });
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await waitFor(() => stream.state === 'live', { what: 'stream live' });
    expect(stream.negotiated.outputPause).toBe(1);
    h.host.hostCapabilities = {};
    h.host.links[0]!.close('upgrade');
    await waitFor(() => client!.state === 'waitingToReconnect', { what: 'client waiting to reconnect' });
    scheduler.advance(100);
    await waitFor(() => stream.state === 'live', { what: 'stream live on the older host' });
    expect(stream.negotiated).toEqual({});
    stream.hide();
    stream.write('marker');
    await waitFor(() => h.host.inputOf('t1') === 'marker', { what: 'marker input' });
    expect(h.host.framesNamed('SetOutputPaused')).toEqual([]);
  });

  it('backs off after failed connects and refuses held input past its bound', async () => {
    const scheduler = new ManualScheduler();
    let failures = 2;
    const h = clientWithFakeHost({ scheduler, maxHeldInputBytes: 8 });
    const realConnect = h.client.options.connect;
    const delays: number[] = [];
    client = new TerminalClient({
      ...h.client.options,
      connect: () => (failures-- > 0 ? Promise.reject(new Error('ECONNREFUSED')) : realConnect()),
    });
    client.on('reconnecting', (e) => delays.push(e.delayMs));
    client.start();
    const stream = client.subscribe('t1');
    expect(stream.write('12345')).toBe(true);
    expect(stream.write('6789')).toBe(false);
    await waitFor(() => delays.length === 1, { what: 'first retry scheduled' });
    scheduler.advance(100);
    await waitFor(() => delays.length === 2, { what: 'second retry scheduled' });
    expect(delays).toEqual([100, 200]);
    scheduler.advance(200);
    await waitFor(() => h.host.inputOf('t1') === '12345', { what: 'held input after the third attempt' });
    expect(client.counters.connectFailures).toBe(2);
    expect(stream.counters.inputRefused).toBe(1);
    expect(client.counters.problems.INPUT_REFUSED).toBe(1);
  });
});
