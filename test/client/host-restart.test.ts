import { afterEach, describe, expect, it } from 'vitest';
import { TerminalClient } from '../../src/client/client.js';
import type { DeliveryNotice } from '../../src/delivery/notices.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { connectWs } from '../../src/transport/ws-client.js';
import { startWsServer, type WsServer } from '../../src/transport/ws-server.js';
import { waitFor } from '../helpers/wait-for.js';

// Real end to end: a bash in a real PTY behind a real WebSocket server; the
// whole host (runtime and server) is stopped and a new one started on the
// same port while the client holds input typed during the outage.

const TOKEN = 'host-restart-token';
const hosts: Array<{ runtime: HostRuntime; server: WsServer }> = [];
let client: TerminalClient | undefined;

afterEach(async () => {
  client?.close();
  for (const h of hosts.splice(0)) {
    await h.runtime.close();
    await h.server.close();
  }
});

async function startHost(port = 0): Promise<{ runtime: HostRuntime; server: WsServer }> {
  const runtime = new HostRuntime({ terminals: (name) => (name === 'main' ? new PtyBackend({ command: 'bash', env: { PS1: '$ ' }, cols: 60, rows: 10 }) : undefined) });
  const server = await startWsServer({ token: TOKEN, port, onLink: (link) => runtime.accept(link) });
  const host = { runtime, server };
  hosts.push(host);
  return host;
}

describe('a host restarted while the client is away', () => {
  it('never types input held for the old shell into the new one, and reports it', async () => {
    const first = await startHost();
    const url = first.server.url;
    client = new TerminalClient({ random: () => 0.5, reconnectInitialDelayMs: 10, reconnectMaxDelayMs: 50, connect: () => connectWs(url, { token: TOKEN }) });
    client.start();
    const stream = client.subscribe('main');
    const notices: DeliveryNotice[] = [];
    stream.on('inputNotice', (n) => notices.push(n));
    await waitFor(() => stream.state === 'live', { what: 'subscribed to the first host' });
    const firstInstance = first.runtime.terminal('main')!.instanceId;

    await first.runtime.close();
    await first.server.close();
    hosts.splice(0);
    await waitFor(() => stream.state === 'pending', { what: 'the client noticed the host is gone' });
    stream.write('echo held-$((40+2))\r'); // typed during the outage, for the shell that is gone

    const second = await startHost(first.server.port);
    await waitFor(() => stream.state === 'live' && second.runtime.terminal('main') !== undefined, { what: 'resubscribed to the restarted host', timeoutMs: 10_000 });
    expect(second.runtime.terminal('main')!.instanceId).not.toBe(firstInstance);
    await waitFor(() => notices.length === 1, { what: 'the dropped input reported' });
    expect(notices[0]).toMatchObject({ code: 'TERMINAL_REPLACED', entries: [{ data: 'echo held-$((40+2))\r' }] });

    stream.write('echo fresh-$((2+3))\r');
    const screen = second.runtime.terminal('main')!.screen;
    await waitFor(async () => (await screen.text()).includes('fresh-5'), { what: 'input typed at the new shell runs there' });
    expect(await screen.text()).not.toContain('held');
  });
});
