import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { isAlive } from '../helpers/process-alive.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestHost, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

let testHost: TestHost | undefined;
afterEach(async () => {
  await testHost?.close();
  testHost = undefined;
});

/** Subscribes and waits for the `subscribed` event; returns it. */
async function subscribed(peer: RawPeer, streamId: number, terminal: string): Promise<Record<string, unknown>> {
  peer.subscribe(streamId, terminal);
  await peer.waitFor(() => peer.snapshots(streamId).length >= 1, `initial snapshot on stream ${streamId}`);
  return peer.json(peer.on(streamId, Op.Metadata).find((f) => peer.json(f).type === 'subscribed')!);
}

describe('terminal lifecycle', () => {
  it('removes an exited terminal: the next Subscribe to its name starts a new instance', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('main') });
    const peer = await testHost.connect();
    const first = await subscribed(peer, 1, 'main');
    expect(first.instanceId).toMatch(/^[0-9a-f]{24}$/);
    peer.send('Input', 1, 'exit\r');
    await peer.waitFor(() => peer.on(1, Op.Metadata).some((f) => peer.json(f).type === 'exit'), 'the exit event');
    await waitFor(() => testHost!.host.terminalCount === 0, { what: 'the exited terminal removed' });

    const second = await subscribed(peer, 2, 'main');
    expect(second.instanceId).toMatch(/^[0-9a-f]{24}$/);
    expect(second.instanceId).not.toBe(first.instanceId);
    peer.send('Input', 2, 'echo again\r');
    await peer.waitFor(() => peer.outputText(2).includes('ran: echo again'), 'the new terminal runs input');
    expect(peer.on(2, Op.Metadata).some((f) => peer.json(f).type === 'exit')).toBe(false);
  });

  it('caps running terminals per server with TERMINALS_PER_SERVER_LIMIT', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a', 'b', 'c'), limits: { maxTerminals: 2 } });
    const one = await testHost.connect();
    const two = await testHost.connect();
    await subscribed(one, 1, 'a');
    await subscribed(two, 1, 'b');
    two.subscribe(2, 'c');
    await two.waitFor(() => two.errors(2).length === 1, 'the refusal');
    expect(two.errors(2)[0]).toBe('TERMINALS_PER_SERVER_LIMIT: 2 running terminals, maxTerminals 2');
    expect(testHost.host.terminalCount).toBe(2);
    await subscribed(two, 3, 'a'); // joining a running terminal starts nothing: allowed
  });

  it('caps the running terminals one connection started with TERMINALS_PER_CONNECTION_LIMIT; other connections are unaffected', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a', 'b', 'c'), limits: { maxTerminalsPerConnection: 1 } });
    const hoarder = await testHost.connect();
    const other = await testHost.connect();
    await subscribed(hoarder, 1, 'a');
    hoarder.subscribe(2, 'b');
    await hoarder.waitFor(() => hoarder.errors(2).length === 1, 'the refusal');
    expect(hoarder.errors(2)[0]).toBe('TERMINALS_PER_CONNECTION_LIMIT: 1 running terminals started by this connection, maxTerminalsPerConnection 1');
    // Unsubscribing does not reset the count: the terminal it started still runs.
    hoarder.send('Unsubscribe', 1, undefined);
    hoarder.subscribe(3, 'c');
    await hoarder.waitFor(() => hoarder.errors(3).length === 1, 'the refusal after unsubscribing');
    await subscribed(other, 1, 'b');
  });

  it('counts terminals against the network they were started from, so a reconnect does not start the count again; an ended terminal frees its place', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a', 'b'), limits: { maxTerminalsPerConnection: 1, detachedTerminalIdleMs: 60_000 } }, {}, true);
    const first = await testHost.connect();
    await subscribed(first, 1, 'a');
    first.close();
    const again = await testHost.connect();
    again.subscribe(1, 'b');
    await again.waitFor(() => again.errors(1).length === 1, 'the refusal after reconnecting');
    expect(again.errors(1)[0]).toBe('TERMINALS_PER_CONNECTION_LIMIT: 1 running terminals started from 127.0.0.1 (by this connection or an earlier one), maxTerminalsPerConnection 1');
    // The detached terminal still counts until it ends; once it has, its place is free.
    await subscribed(again, 2, 'a');
    again.send('Input', 2, 'exit\r');
    await waitFor(() => testHost!.host.terminalCount === 0, { what: 'terminal a ended' });
    await subscribed(again, 3, 'b');
  });

  it('ends a terminal nobody has subscribed to for detachedTerminalIdleMs, and only that one', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('watched', 'left'), limits: { detachedTerminalIdleMs: 50 } });
    const peer = await testHost.connect();
    await subscribed(peer, 1, 'watched');
    await subscribed(peer, 2, 'left');
    const left = testHost.host.terminal('left')!.backend as ScriptBackend;
    peer.send('Unsubscribe', 2, undefined);
    await waitFor(() => left.exited && testHost!.host.terminal('left') === undefined, { what: 'the detached terminal ended' });
    // 'watched' had a subscriber the whole time: still running, and a new 'left' can start.
    expect(testHost.host.terminal('watched')?.exit).toBeUndefined();
    const again = await subscribed(peer, 3, 'left');
    expect(again.instanceId).toBeDefined();
  });
});

describe('host close', () => {
  it('sends SIGHUP, then SIGKILL to a PTY child that ignores SIGHUP', async () => {
    const backend = new PtyBackend({ command: 'bash', args: ['--noprofile', '--norc', '-c', "trap '' HUP; echo ready; while :; do read -t 1; done"] });
    let output = '';
    backend.onData((data) => (output += data));
    const runtime = new HostRuntime({ terminals: () => backend, limits: { terminalKillGraceMs: 200 } });
    runtime.openTerminal('main');
    await waitFor(() => output.includes('ready'), { what: 'the child trapped SIGHUP' });
    await runtime.close();
    // The child ignores SIGHUP for ever, so only the SIGKILL after the grace ends it: no elapsed-time check, which a loaded machine would fail.
    await waitFor(() => !isAlive(backend.pid), { what: 'the child killed', timeoutMs: 20_000 });
  });
});
