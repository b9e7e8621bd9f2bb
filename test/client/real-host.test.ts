import { DEFAULT_CLIENT_CAPABILITIES, DEFAULT_HOST_CAPABILITIES } from '../../src/capabilities/defaults.js';
import { negotiate } from '../../src/capabilities/negotiate.js';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalClient } from '../../src/client/client.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import type { FrameLink } from '../../src/transport/link.js';
import { connectWs } from '../../src/transport/ws-client.js';
import { startWsServer, type WsServer } from '../../src/transport/ws-server.js';
import { waitFor } from '../helpers/wait-for.js';

// Real end to end: the reference host runtime with a bash in a real PTY,
// served over a real WebSocket, and the reference client over connectWs.

const TOKEN = 'client-e2e-token';
let server: WsServer | undefined;
let runtime: HostRuntime | undefined;
let client: TerminalClient | undefined;

afterEach(async () => {
  client?.close();
  runtime?.close();
  await server?.close();
});

describe('TerminalClient against the reference host over WebSocket', () => {
  it('subscribes, types into bash, sees the output, and resubscribes after the socket drops', async () => {
    runtime = new HostRuntime({ terminals: (name) => (name === 'bash' ? new PtyBackend({ command: 'bash', env: { PS1: '$ ' }, cols: 60, rows: 10 }) : undefined) });
    const rt = runtime;
    server = await startWsServer({ token: TOKEN, onLink: (link) => rt.accept(link) });
    const url = server.url;
    const links: FrameLink[] = [];
    client = new TerminalClient({
      random: () => 0.5,
      reconnectInitialDelayMs: 10,
      connect: async () => {
        const link = await connectWs(url, { token: TOKEN });
        links.push(link);
        return link;
      },
    });
    client.start();
    const stream = client.subscribe('bash');
    await waitFor(() => stream.state === 'live' && stream.counters.snapshotsApplied === 1, { what: 'subscribed with the initial snapshot' });
    expect(stream.negotiated).toEqual(negotiate(DEFAULT_CLIENT_CAPABILITIES, DEFAULT_HOST_CAPABILITIES)); // every default capability, whatever a new one adds

    stream.write('echo one-$((40+2))\r');
    await waitFor(async () => (await stream.whenIdle(), stream.screenText().includes('one-42')), { what: 'one-42 on the client screen' });

    links[0]!.close('test drops the socket');
    await waitFor(() => client!.counters.connects === 2 && stream.state === 'live', { what: 'reconnected and live again' });
    stream.write('echo two-$((40+3))\r');
    await waitFor(async () => (await stream.whenIdle(), stream.screenText().includes('two-43')), { what: 'two-43 after the reconnect' });
    expect(stream.screenText()).toContain('one-42'); // restored by the reconnect snapshot
    const hostScreen = rt.terminal('bash')!.screen;
    await hostScreen.settled();
    await waitFor(async () => (await stream.whenIdle(), stream.screenText() === (await hostScreen.text())), { what: 'client screen equal to the host screen' });
    expect(stream.counters.gaps).toBe(0);
  });
});
