import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_CAPABILITIES } from '../../src/capabilities/defaults.js';
import { TerminalClient } from '../../src/client/client.js';
import type { ClientStream } from '../../src/client/stream.js';
import type { ClientStreamEvents } from '../../src/client/stream-events.js';
import type { HostLimits } from '../../src/host/options.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { connectWs } from '../../src/transport/ws-client.js';
import { startWsServer, type WsServer } from '../../src/transport/ws-server.js';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { waitFor } from '../helpers/wait-for.js';

// The reference host and client over a real WebSocket, through a SIMULATED
// network (test/helpers/fault-proxy.ts) whose black hole makes the outage
// silent: the client learns of it from liveness alone.

const TOKEN = 'output-resume-token';
let server: WsServer | undefined;
let runtime: HostRuntime | undefined;
let client: TerminalClient | undefined;
let proxy: FaultProxy | undefined;

afterEach(async () => {
  client?.close();
  proxy?.close();
  runtime?.close();
  await server?.close();
});

const line = (n: number) => `line ${n}\r\n`;

/** A host with one script terminal behind a fault proxy, and a client subscribed to it, live on its first snapshot. */
async function attached(opts: { limits?: Partial<HostLimits>; hostCapabilities?: Record<string, number> } = {}) {
  // A new script terminal for each start of 't', as a shell starts again once the last one exited.
  const backends: ScriptBackend[] = [];
  const start = () => backends[backends.push(new ScriptBackend({ banner: 'banner\r\n' })) - 1]!;
  runtime = new HostRuntime({ terminals: (name) => (name === 't' ? start() : undefined), ...(opts.limits ? { limits: opts.limits } : {}), ...(opts.hostCapabilities ? { capabilities: opts.hostCapabilities } : {}) });
  const rt = runtime;
  server = await startWsServer({ token: TOKEN, onLink: (link) => rt.accept(link) });
  proxy = await startFaultProxy(Number(new URL(server.url).port));
  const url = proxy.url;
  client = new TerminalClient({ random: () => 0.5, reconnectInitialDelayMs: 10, connect: () => connectWs(url, { token: TOKEN, pingIntervalMs: 100, pongDeadlineMs: 300 }) });
  client.start();
  const stream = client.subscribe('t');
  const seen = record(stream);
  await waitFor(() => stream.state === 'live' && stream.counters.snapshotsApplied === 1, { what: 'subscribed with the initial snapshot' });
  return { backend: backends[0]!, backends, stream, seen };
}

/** Everything the stream hands its user: output text in order, snapshots, subscribed events. */
function record(stream: ClientStream) {
  const seen = { output: '', snapshots: 0, subscribed: [] as Array<ClientStreamEvents['subscribed']>, exits: [] as Array<ClientStreamEvents['exit']> };
  stream.on('output', ({ text }) => (seen.output += text));
  stream.on('exit', (e) => seen.exits.push(e));
  stream.on('snapshot', () => seen.snapshots++);
  stream.on('subscribed', (e) => seen.subscribed.push(e));
  return seen;
}

/** Prints lines from..to, lets the client see them, then black-holes the link and prints more while it is silent. */
async function outage(setup: Awaited<ReturnType<typeof attached>>, before: number, during: number) {
  const { backend, stream, seen } = setup;
  for (let n = 1; n <= before; n++) backend.emit(line(n));
  await waitFor(() => seen.output.includes(line(before)), { what: `line ${before} received` });
  proxy!.freezeOpenConnections();
  for (let n = before + 1; n <= before + during; n++) backend.emit(line(n));
  await waitFor(() => seen.subscribed.length === 2 && stream.state === 'live', { what: 'resubscribed after the silent outage' });
}

/** The bytes of lines from..to. */
const linesBytes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => line(from + i)).join('').length;
const count = (text: string, piece: string) => text.split(piece).length - 1;

describe('outputResume: output resumes after a reconnect from the last byte received', () => {
  it('replays what the client missed, each line once, with no snapshot', async () => {
    const setup = await attached();
    await outage(setup, 20, 30);
    const { seen, stream } = setup;
    expect(seen.subscribed[1]!.resume).toEqual({ outcome: 'resumed', fromSeq: expect.any(Number), skippedBytes: 0 });
    await waitFor(() => seen.output.includes(line(50)), { what: 'line 50 replayed' });
    setup.backend.emit(line(51));
    await waitFor(() => seen.output.includes(line(51)), { what: 'line 51 live after the replay' });
    for (let n = 1; n <= 51; n++) expect(count(seen.output, line(n)), `line ${n}`).toBe(1);
    expect(seen.output).toBe(Array.from({ length: 51 }, (_, i) => line(i + 1)).join(''));
    expect(seen.snapshots).toBe(1);
    expect(stream.counters.gaps).toBe(0);
    await stream.whenIdle();
    expect(stream.screenText()).toBe(await runtime!.terminal('t')!.screen.text());
  });

  it('repaints from a snapshot and says how much was skipped when the host no longer holds the bytes', async () => {
    const setup = await attached({ limits: { outputHistoryBytes: 64 } });
    await outage(setup, 5, 30);
    const { seen } = setup;
    expect(seen.subscribed[1]!.resume).toEqual({ outcome: 'beyondHistory', fromSeq: expect.any(Number), skippedBytes: linesBytes(6, 35) });
    await waitFor(() => seen.snapshots === 2, { what: 'the reconnect snapshot' });
    expect(count(seen.output, line(35))).toBe(0); // in the snapshot, never as output
  });

  it('gets a snapshot, as today, from a host without outputResume', async () => {
    const { outputResume: _, ...older } = DEFAULT_HOST_CAPABILITIES;
    const setup = await attached({ hostCapabilities: older as Record<string, number> });
    await outage(setup, 5, 10);
    const { seen, stream } = setup;
    expect(stream.negotiated.outputResume).toBeUndefined();
    expect(seen.subscribed[1]!.resume).toEqual({ outcome: 'unsupported', fromSeq: expect.any(Number), skippedBytes: linesBytes(6, 15) });
    await waitFor(() => seen.snapshots === 2, { what: 'the reconnect snapshot' });
  });

  it('tells a client whose link was down when its shell exited how it ended, types nothing it held, and starts no new shell', async () => {
    const setup = await attached();
    const { backend, stream, seen } = setup;
    for (let n = 1; n <= 5; n++) backend.emit(line(n));
    await waitFor(() => seen.output.includes(line(5)), { what: 'line 5 received' });
    proxy!.freezeOpenConnections();
    backend.emit(line(6));
    backend.kill();
    const typed = stream.writeApplied('echo typed in the dark\r').then(() => 'applied', (error: unknown) => error);
    await waitFor(() => stream.state === 'closed', { what: 'the stream ended by the exit it was told on its return' });
    expect(seen.subscribed[1]!.resume).toEqual({ outcome: 'exited', fromSeq: expect.any(Number), skippedBytes: line(6).length });
    expect(seen.subscribed[1]!.instanceId).toBe(seen.subscribed[0]!.instanceId);
    expect(seen.exits).toEqual([{ exitCode: null, signal: 15 }]);
    expect(await typed).toMatchObject({ code: 'TERMINAL_EXITED' });
    expect(seen.snapshots).toBe(1);
    expect(runtime!.hasTerminal('t')).toBe(false);
    expect(setup.backends).toHaveLength(1);
    expect(runtime!.counters.exitsAnswered).toBe(1);
  });

  it('asks for no resume point in an instance it saw exit: the next Subscribe gets a new shell, as before', async () => {
    const setup = await attached();
    const { backend, stream, seen } = setup;
    backend.emit(line(1));
    await waitFor(() => seen.output.includes(line(1)), { what: 'line 1 received' });
    backend.kill();
    await waitFor(() => seen.exits.length === 1, { what: 'the exit event' });
    proxy!.freezeOpenConnections();
    await waitFor(() => seen.subscribed.length === 2 && stream.state === 'live' && seen.snapshots === 2, { what: 'resubscribed, with a snapshot of a new shell' });
    expect(seen.subscribed[1]!.resume).toBeUndefined();
    expect(seen.subscribed[1]!.instanceId).not.toBe(seen.subscribed[0]!.instanceId);
    expect(setup.backends).toHaveLength(2);
  });

  it('starts a new shell for a resume point the host no longer remembers the exit of (rememberedExits 0)', async () => {
    const setup = await attached({ limits: { rememberedExits: 0 } });
    const { backend, stream, seen } = setup;
    backend.emit(line(1));
    await waitFor(() => seen.output.includes(line(1)), { what: 'line 1 received' });
    proxy!.freezeOpenConnections();
    backend.kill();
    await waitFor(() => seen.subscribed.length === 2 && stream.state === 'live' && seen.snapshots === 2, { what: 'resubscribed to a new shell' });
    expect(seen.subscribed[1]!.resume).toMatchObject({ outcome: 'otherInstance' });
    expect(seen.exits).toEqual([]);
  });
});
