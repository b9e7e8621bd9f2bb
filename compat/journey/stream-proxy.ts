import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import type { LivenessExchange, ProbeEnd, UnplannedEnd } from '../recording.js';
import { ProxyAdmission, type Upstream } from './proxy-admission.js';
import { type ClientProcessLabel, type DropMode, type FrameDirection, peekHeader, type ProxiedFrame } from './recording-proxy.js';

/** The byte stream's framing, fixed by the wire spec: a u32 little-endian length, then the frame. Read here, never with a build's deframer. */
const LENGTH_BYTES = 4;
/** A length past this is not a frame of this wire (a build writing another framing): recording stops for that direction, forwarding does not. */
const MAX_RECORDED_FRAME_BYTES = 64 * 1024 * 1024;

/** Splits a byte stream into frames as the wire spec frames them; forwards nothing itself. */
class FrameSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private lost = false;

  constructor(private readonly onFrame: (frame: Uint8Array) => void) {}

  push(chunk: Buffer): void {
    if (this.lost) return;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= LENGTH_BYTES) {
      const length = this.pending.readUInt32LE(0);
      if (length > MAX_RECORDED_FRAME_BYTES) {
        this.lost = true;
        return;
      }
      if (this.pending.length < LENGTH_BYTES + length) return;
      this.onFrame(new Uint8Array(this.pending.subarray(LENGTH_BYTES, LENGTH_BYTES + length)));
      this.pending = this.pending.subarray(LENGTH_BYTES + length);
    }
  }
}

interface StreamPair {
  readonly id: number;
  readonly downstream: Socket;
  readonly upstream: Socket;
}

/**
 * The recording proxy of the byte-stream pass: sits in the real TCP
 * connection between a client process and a host process, forwards every
 * byte unchanged, and records each frame as the wire spec frames it. A build
 * that frames the stream another way is not misread here: its bytes still
 * reach the other peer as written, and what that peer makes of them is the
 * finding. The stream has no liveness of its own, so a drop closes the link.
 */
export class StreamRecordingProxy extends ProxyAdmission {
  readonly frames: ProxiedFrame[] = [];
  /** No pings on a byte stream. */
  readonly liveness: LivenessExchange[] = [];
  /** A byte stream has no liveness to give up on a link, so every end is the journey's or the proxy's. */
  readonly unplannedEnds: UnplannedEnd[] = [];
  /** No probe on a byte stream: what it sends (a text message) is WebSocket's. */
  readonly probeEnds: ProbeEnd[] = [];
  readonly probeFloodAnswered = 0;
  /** A byte stream carries no token; the client peer's --token is required and ignored for tcp://. */
  readonly token = 'none';
  step = 'setup';
  private server?: Server;
  private readonly pairs = new Set<StreamPair>();
  private readonly waiting = new Set<Socket>();
  journeyEnded(): void {}

  async listen(): Promise<string> {
    const server = createServer((downstream) => {
      // Read nothing until the host is known and the connection is let through.
      downstream.pause();
      downstream.on('error', () => downstream.destroy());
      // Until bridged it is not a pair: close() ends it itself, or the server would wait for it forever.
      this.waiting.add(downstream);
      void this.admitted().then((upstream) => {
        this.waiting.delete(downstream);
        if (downstream.destroyed) return;
        this.bridge(downstream, upstream);
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return `tcp://127.0.0.1:${port}`;
  }

  private bridge(downstream: Socket, target: Upstream): void {
    const id = ++this.connections;
    const { hostname, port } = new URL(target.url);
    const upstream = connect({ host: hostname, port: Number(port), noDelay: true });
    const pair: StreamPair = { id, downstream, upstream };
    this.pairs.add(pair);
    const record = (direction: FrameDirection) => new FrameSplitter((bytes) => this.record(direction, bytes, pair));
    const fromClient = record('clientToHost');
    const fromHost = record('hostToClient');
    downstream.on('data', (chunk: Buffer) => {
      fromClient.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      fromHost.push(chunk);
      downstream.write(chunk);
    });
    const teardown = () => {
      this.pairs.delete(pair);
      downstream.destroy();
      upstream.destroy();
    };
    for (const socket of [downstream, upstream]) {
      socket.on('close', teardown);
      socket.on('error', teardown);
    }
    downstream.resume();
  }

  private record(direction: FrameDirection, bytes: Uint8Array, pair: StreamPair, fault?: 'injected'): void {
    this.frames.push({ direction, step: this.step, bytes, connection: pair.id, client: 'primary', ...peekHeader(bytes), ...(fault ? { fault } : {}) });
  }

  probe(): Promise<never> {
    return Promise.reject(new Error('the byte stream has no probe connection: its text messages and floods are WebSocket steps'));
  }

  probeWrongToken(): Promise<never> {
    return Promise.reject(new Error('the byte stream carries no token'));
  }

  /** Writes a frame toward the host on the live connection, framed as the wire spec frames it; recorded as injected. */
  inject(_client: ClientProcessLabel, bytes: Uint8Array): boolean {
    const pair = [...this.pairs].at(-1);
    if (!pair || pair.upstream.destroyed) return false;
    this.record('clientToHost', bytes, pair, 'injected');
    const prefix = Buffer.alloc(LENGTH_BYTES);
    prefix.writeUInt32LE(bytes.length);
    pair.upstream.write(Buffer.concat([prefix, bytes]));
    return true;
  }

  /** Closes every live connection: a byte stream has no liveness to notice a silent one. */
  drop(mode: DropMode): void {
    if (mode !== 'close') throw new Error('the byte stream has no liveness: only a closing drop can be noticed');
    for (const pair of this.pairs) {
      pair.downstream.destroy();
      pair.upstream.destroy();
    }
  }

  dropSequencedInput(): void {
    throw new Error('input faults are walked in the WebSocket pass');
  }

  duplicateSequencedInput(): void {
    throw new Error('input faults are walked in the WebSocket pass');
  }

  loseInputAck(): void {
    throw new Error('input faults are walked in the WebSocket pass');
  }

  withholdAcks(): void {
    throw new Error('credit faults are walked in the WebSocket pass');
  }

  releaseAcks(): number {
    throw new Error('credit faults are walked in the WebSocket pass');
  }

  holdToClient(): void {
    throw new Error('credit faults are walked in the WebSocket pass');
  }

  heldToClient(): readonly Uint8Array[] {
    throw new Error('credit faults are walked in the WebSocket pass');
  }

  releaseToClient(): number {
    throw new Error('credit faults are walked in the WebSocket pass');
  }

  async close(): Promise<void> {
    for (const socket of this.waiting) socket.destroy();
    this.waiting.clear();
    for (const pair of this.pairs) {
      pair.downstream.destroy();
      pair.upstream.destroy();
    }
    this.pairs.clear();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
