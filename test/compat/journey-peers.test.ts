import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { drivableOps, stepsSkippedInRun } from '../../compat/journey/drivable.js';
import { PeerProcess, PeerProtocolError } from '../../compat/journey/peer-process.js';
import { DEFAULT_JOURNEY_OPTIONS, runPairing, SCRIPT_PLAN } from '../../compat/journey/run-pairing.js';
import { GATE_ACK_BATCH_BYTES, GATE_FLOW, hostHoldsBytes } from '../../compat/journey/journey-flow.js';
import { runDecision } from '../../compat/journey/run.js';
import { DUPLICATED_INPUTS, JOURNEY_TITLE, PASTE_TEXT, REFUSED_INPUT } from '../../compat/journey/surface-steps.js';
import type { ClientLabel, FrameDirection, RecordedFrame, StepName } from '../../compat/recording.js';
import { isAlive, processIdentity, waitForExit } from '../helpers/process-alive.js';
import { waitFor } from '../helpers/wait-for.js';

const root = join(import.meta.dirname, '..', '..');
const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));

describe('peer processes', () => {
  it('a peer exits by itself when the harness dies without a word (SIGKILL)', async () => {
    // A stand-in harness in its own process: starts a real host peer of this build, prints its pid, then waits.
    const harness = `
      import { PeerProcess } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'compat', 'journey', 'peer-process.js')).href)};
      const peer = await PeerProcess.start({ buildDir: ${JSON.stringify(root)}, role: 'host', label: 'host' });
      console.log('peer-pid', peer.pid);
      setInterval(() => undefined, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', harness], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanup.push(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    await waitFor(() => /peer-pid (\d+)/.test(out), { what: 'the harness to print its peer pid', timeoutMs: 20_000 });
    const peerPid = Number(/peer-pid (\d+)/.exec(out)![1]);
    const peer = processIdentity(peerPid);
    expect(peer && isAlive(peer)).toBe(true);
    child.kill('SIGKILL');
    await waitForExit(peer!, { what: `peer ${peerPid} to exit after its harness was killed`, timeoutMs: 10_000 });
  });

  it('refuses a peer speaking a peer protocol this harness cannot drive, naming both versions', async () => {
    const build = mkdtempSync(join(tmpdir(), 'termwire-future-peer-'));
    cleanup.push(() => rmSync(build, { recursive: true, force: true }));
    mkdirSync(join(build, 'dist', 'compat', 'peer'), { recursive: true });
    // A future build's peer: says hello with protocol 99 over fd 3, length-prefixed msgpack like the real one.
    writeFileSync(
      join(build, 'dist', 'compat', 'peer', 'main.js'),
      `import { Socket } from 'node:net';
       import { encode } from ${JSON.stringify(pathToFileURL(join(root, 'node_modules', '@msgpack', 'msgpack', 'dist.esm', 'index.mjs')).href)};
       const body = encode({ hello: { peerProtocol: 99, role: 'host', version: '9.0.0', advertised: {} } });
       const head = Buffer.alloc(4); head.writeUInt32LE(body.length);
       const channel = new Socket({ fd: 3, readable: true, writable: true });
       channel.write(Buffer.concat([head, body]));
       setInterval(() => undefined, 1000);`,
    );
    const started = PeerProcess.start({ buildDir: build, role: 'host', label: 'future host' });
    await expect(started).rejects.toBeInstanceOf(PeerProtocolError);
    await expect(started).rejects.toThrow(/peer protocol 99 of build 9\.0\.0 is outside what this harness drives \(1\.\.2\)/);
  });

  it('the script journey walks the wire surface in new × new, each step on its barrier', async () => {
    const manifest = JSON.parse(execFileSync(process.execPath, [join(root, 'bin', 'termwire.js'), 'manifest'], { encoding: 'utf8' }));
    const codec = await PeerProcess.start({ buildDir: root, role: 'codec', label: 'new codec' });
    cleanup.push(() => void codec.stop());
    expect(codec.hello.peerProtocol).toBe(2);
    const ops = drivableOps(codec.hello, codec.hello);
    const side = { side: 'new' as const, build: { dir: root, version: codec.hello.version, commit: 'working tree', manifest }, codec, holdsBytes: await hostHoldsBytes(root) };
    const decision = runDecision(SCRIPT_PLAN, side, side);
    expect(decision.ops).toEqual(ops);
    const walk = () => runPairing(side, side, DEFAULT_JOURNEY_OPTIONS, SCRIPT_PLAN, decision);
    let rec = await walk();
    // A client that gave up a link the proxy kept up (a busy machine starved a peer past its pong deadline) renumbers what follows: walked again, as the gate walks a disturbed walk again.
    if (rec.unplannedEnds?.length) rec = await walk();

    expect(rec.steps.filter((s) => s.status !== 'ok'), JSON.stringify(rec.peerErrors)).toEqual([]);
    const frames = (step: StepName, client: ClientLabel, direction: FrameDirection, opcodeName: string, where: (f: RecordedFrame) => boolean = () => true) =>
      rec.frames.filter((f) => f.step === step && (f.client ?? 'primary') === client && f.direction === direction && f.opcodeName === opcodeName && where(f));
    const payload = (f: RecordedFrame) => f.payload as Record<string, unknown>;
    expect(frames('subscribe', 'primary', 'hostToClient', 'SnapshotEnd'), "the Subscribe's snapshot in its step, whatever the host's pace").toHaveLength(1);
    expect(frames('initialSnapshot', 'primary', 'hostToClient', 'SnapshotStart')).toEqual([]);
    expect(frames('title', 'primary', 'hostToClient', 'Metadata', (f) => payload(f).type === 'title' && payload(f).title === JOURNEY_TITLE)).toHaveLength(1);
    // outputResume: the reconnect resumes the output where the client lost it, with no snapshot.
    expect(frames('resubscribe', 'primary', 'clientToHost', 'Subscribe', (f) => typeof payload(f).resumeFrom === 'number' && typeof payload(f).resumeInstanceId === 'string')).toHaveLength(1);
    expect(frames('resubscribe', 'primary', 'hostToClient', 'Metadata', (f) => payload(f).type === 'subscribed' && payload(f).resume === 'resumed')).toHaveLength(1);
    expect(frames('resubscribe', 'primary', 'hostToClient', 'SnapshotStart')).toEqual([]);
    const streamsOf = (list: RecordedFrame[]) => new Set(list.map((f) => f.streamId));
    expect(streamsOf(frames('twoStreams', 'primary', 'hostToClient', 'Output')).size, 'output on two streams of one connection').toBe(2);
    expect(streamsOf(frames('twoStreams', 'primary', 'clientToHost', 'Ack')).size, 'each stream credited by its own Acks').toBe(2);
    expect(frames('paste', 'primary', 'clientToHost', 'Input').length).toBeGreaterThan(1); // 16 KiB chunks
    expect(PASTE_TEXT.length).toBeGreaterThan(16 * 1024);
    const burstBytes = frames('burst', 'primary', 'hostToClient', 'Output').reduce((sum, f) => sum + (f.rawHex.length / 2 - 16), 0);
    // The gate sets this build's hosts a small flow (journey-flow.ts), and the burst goes past its window at the largest.
    expect(decision.flow.hostLimits).toEqual(GATE_FLOW);
    expect(decision.flow.clientAckBatchBytes).toBe(GATE_ACK_BATCH_BYTES);
    expect(burstBytes).toBeGreaterThan(GATE_FLOW.streamWindowMaxBytes);
    expect(frames('burst', 'primary', 'clientToHost', 'Ack').length).toBeGreaterThan(1);
    expect(frames('burst', 'primary', 'hostToClient', 'SnapshotStart'), 'the burst fits in window and queue: nothing dropped').toEqual([]);
    expect(frames('overflowRecovery', 'primary', 'hostToClient', 'SnapshotStart', (f) => payload(f).cause === 'overflow')).toHaveLength(1);
    const overflowSent = frames('overflowRecovery', 'primary', 'hostToClient', 'Output').reduce((sum, f) => sum + (f.rawHex.length / 2 - 16), 0);
    expect(overflowSent, 'the queue past the window was dropped, not sent').toBeLessThan(decision.flow.overflowEmitBytes - GATE_FLOW.streamQueueMaxBytes);
    expect(frames('inputResend', 'primary', 'clientToHost', 'Input', (f) => f.fault === 'dropped')).toHaveLength(1);
    expect(frames('inputDuplicated', 'primary', 'clientToHost', 'Input', (f) => f.fault === 'injected')).toHaveLength(1);
    expect(rec.input.reachedTerminal.split(DUPLICATED_INPUTS[0]).length - 1, 'the duplicated input reached the terminal once').toBe(1);
    expect(frames('inputResend', 'primary', 'hostToClient', 'InputAck', (f) => payload(f).status === 'resend').length).toBeGreaterThanOrEqual(1);
    expect(frames('deliveryUnknown', 'primary', 'hostToClient', 'InputAck', (f) => payload(f).status === 'deliveryUnknown')).toHaveLength(1);
    expect(frames('writeRefused', 'primary', 'hostToClient', 'InputAck', (f) => payload(f).status === 'resend').length, 'the refused write asked for again').toBeGreaterThanOrEqual(1);
    expect(rec.input.reachedTerminal.split(REFUSED_INPUT).length - 1, 'the refused write reached the terminal once').toBe(1);
    // Every snapshot after the coloured lines spans chunks: the reveal's among them.
    expect(frames('hideReveal', 'primary', 'hostToClient', 'SnapshotChunk').length, 'a snapshot of more than one chunk').toBeGreaterThan(frames('hideReveal', 'primary', 'hostToClient', 'SnapshotStart').length);
    expect(frames('secondClient', 'second', 'hostToClient', 'Metadata', (f) => payload(f).type === 'subscribed').every((f) => f.occurrence === 'attach')).toBe(true);
    for (const client of ['primary', 'second'] as const) {
      expect(frames('resize', client, 'hostToClient', 'Resized', (f) => payload(f).cols === 100), `Resized to the ${client} client`).toHaveLength(1);
      expect(frames('claimViewport', client, 'hostToClient', 'Resized', (f) => payload(f).cols === 90), `Resized to the ${client} client`).toHaveLength(1);
      expect(frames('exit', client, 'hostToClient', 'Metadata', (f) => payload(f).type === 'exit'), `exit to the ${client} client`).toHaveLength(1);
    }
    expect(frames('claimViewport', 'second', 'clientToHost', 'ClaimViewport')).toHaveLength(1);
    expect(frames('inputAfterExit', 'second', 'hostToClient', 'WriteUnavailable').length).toBeGreaterThanOrEqual(1);
    expect(frames('inputAfterExit', 'second', 'hostToClient', 'Metadata', (f) => payload(f).type === 'unsubscribed')).toHaveLength(1);
    expect(frames('unsubscribe', 'primary', 'hostToClient', 'Metadata', (f) => payload(f).type === 'unsubscribed')).toHaveLength(1);
    expect(frames('inputAfterUnsubscribe', 'primary', 'clientToHost', 'Input', (f) => f.fault === 'injected')).toHaveLength(1);
    expect(frames('inputAfterUnsubscribe', 'primary', 'hostToClient', 'Error', (f) => String(f.payload).startsWith('NOT_SUBSCRIBED:'))).toHaveLength(1);
    expect(frames('lateSubscriber', 'primary', 'hostToClient', 'Metadata', (f) => payload(f).type === 'subscribed')).toHaveLength(1);
    expect(frames('killed', 'primary', 'hostToClient', 'Metadata', (f) => payload(f).type === 'exit' && payload(f).exitCode === null && payload(f).signal === 15)).toHaveLength(1);
    const limitError = (client: ClientLabel, code: string) => frames('limitsReached', client, 'hostToClient', 'Error', (f) => String(f.payload).startsWith(`${code}:`));
    for (const code of ['UNGATED_FRAME', 'RESIZE_TOO_LARGE', 'TERMINALS_PER_CONNECTION_LIMIT', 'TOO_MANY_STREAMS', 'WRITE_UNAVAILABLE']) expect(limitError('primary', code).length, code).toBeGreaterThanOrEqual(1);
    expect(limitError('second', 'TERMINALS_PER_SERVER_LIMIT').length).toBeGreaterThanOrEqual(1);
    expect(frames('limitsReached', 'primary', 'clientToHost', 'Subscribe', (f) => typeof payload(f).client === 'object')).toHaveLength(1);
    expect(frames('limitsReached', 'primary', 'hostToClient', 'SnapshotStart', (f) => payload(f).requestId === 'limits' && payload(f).source === 'request')).toHaveLength(1);
    expect(rec.input.reachedTerminal).toBe(rec.input.typed);
    expect(rec.screens.client).toBe(rec.screens.host);
  }, 120_000);
});
