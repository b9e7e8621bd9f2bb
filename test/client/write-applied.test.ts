import { afterEach, describe, expect, it } from 'vitest';
import { TerminalClient } from '../../src/client/client.js';
import { InputNotAppliedError } from '../../src/client/stream-input.js';
import { DEFAULT_CLIENT_CAPABILITIES } from '../../src/capabilities/defaults.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { connectWs } from '../../src/transport/ws-client.js';
import { startWsServer, type WsServer } from '../../src/transport/ws-server.js';
import { waitFor } from '../helpers/wait-for.js';

const TOKEN = 'write-applied-token';
let server: WsServer | undefined;
let runtime: HostRuntime | undefined;
let client: TerminalClient | undefined;

afterEach(async () => {
  client?.close();
  runtime?.close();
  await server?.close();
});

describe('stream.writeApplied against the reference host over WebSocket', () => {
  it('resolves once the host applied the input, typed before the link is up or after; rejects with a reason once the stream is closed', async () => {
    runtime = new HostRuntime({ terminals: (name) => (name === 'bash' ? new PtyBackend({ command: 'bash', env: { PS1: '$ ' }, cols: 60, rows: 10 }) : undefined) });
    const rt = runtime;
    server = await startWsServer({ token: TOKEN, onLink: (link) => rt.accept(link) });
    const url = server.url;
    client = new TerminalClient({ connect: () => connectWs(url, { token: TOKEN }) });
    const stream = client.subscribe('bash');
    const early = stream.writeApplied('echo early-$((40+2))\r'); // held until the stream is live
    client.start();
    await expect(early).resolves.toBeUndefined();
    expect(stream.inputState.journal.unackedCount).toBe(0);
    await expect(stream.writeApplied('echo late-$((40+3))\r')).resolves.toBeUndefined();
    await waitFor(async () => (await stream.whenIdle(), /early-42[\s\S]*late-43/.test(stream.screenText())), { what: 'both commands run, in order' });

    await stream.unsubscribe();
    const refused = stream.writeApplied('never');
    await expect(refused).rejects.toBeInstanceOf(InputNotAppliedError);
    await expect(refused).rejects.toMatchObject({ code: 'REFUSED' });
  });
});

describe('stream.paste against the reference host over WebSocket', () => {
  it("resolves `applied` once the host applied every chunk; a paste held past its timeout is withdrawn, TIMED_OUT, and never typed", async () => {
    runtime = new HostRuntime({ terminals: (name) => (name === 'bash' ? new PtyBackend({ command: 'bash', env: { PS1: '$ ' }, cols: 60, rows: 10 }) : undefined) });
    const rt = runtime;
    server = await startWsServer({ token: TOKEN, onLink: (link) => rt.accept(link) });
    const url = server.url;
    client = new TerminalClient({ connect: () => connectWs(url, { token: TOKEN }), delivery: { pasteChunkBytes: 8, pasteTimeoutMsPerChunk: 100 } });
    const stream = client.subscribe('bash');
    const stale = stream.paste('echo stale-$((6*7))\r')!; // 3 chunks, held: the client has not started
    expect(stale.chunks).toBe(3);
    await expect(stale.applied).rejects.toMatchObject({ name: 'InputNotAppliedError', code: 'TIMED_OUT' });

    client.start();
    const fresh = stream.paste('echo fresh-$((6*8))\r')!;
    await expect(fresh.applied).resolves.toBeUndefined();
    await waitFor(async () => (await stream.whenIdle(), /fresh-48/.test(stream.screenText())), { what: 'the fresh paste run' });
    expect(stream.screenText()).not.toContain('stale');
  });
});

describe('stream.paste where the host does not negotiate inputAck', () => {
  it('sends every chunk unsequenced and hands back a handle: its chunk count, a cancel that withdraws nothing, and UNCONFIRMABLE', async () => {
    const backend = new ScriptBackend();
    runtime = new HostRuntime({ terminals: () => backend });
    const rt = runtime;
    server = await startWsServer({ token: TOKEN, onLink: (link) => rt.accept(link) });
    const url = server.url;
    const { inputAck: _leftOut, ...withoutInputAck } = DEFAULT_CLIENT_CAPABILITIES;
    client = new TerminalClient({ connect: () => connectWs(url, { token: TOKEN }), capabilities: withoutInputAck, delivery: { pasteChunkBytes: 8 } });
    const stream = client.subscribe('main');
    let subscribed = false;
    stream.on('subscribed', () => (subscribed = true));
    client.start();
    await waitFor(() => subscribed, { what: 'the stream subscribed' });
    expect(stream.negotiated.inputAck ?? 0).toBe(0);
    const handle = stream.paste('echo unsequenced\r')!;
    expect([handle.chunks, handle.cancel()]).toEqual([3, 0]);
    await expect(handle.applied).rejects.toMatchObject({ code: 'UNCONFIRMABLE' });
    await waitFor(() => backend.inputLog().includes('echo unsequenced\r'), { what: 'the three chunks typed' });
  });
});
