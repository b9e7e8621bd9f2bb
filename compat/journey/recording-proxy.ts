import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

export type FrameDirection = 'clientToHost' | 'hostToClient';
export type ClientLabel = 'primary' | 'second';

export interface ProxiedFrame {
  readonly direction: FrameDirection;
  /** The journey step current when the frame crossed the proxy. */
  readonly step: string;
  readonly bytes: Uint8Array;
  /** Which client connection (1 for the first, 2 after a reconnect, ...), over all clients. */
  readonly connection: number;
  /** Which client: named by the path of the URL it connected to (`/second`), primary otherwise. */
  readonly client: ClientLabel;
  /** The wire v1 header (a permanent format), read here so barriers can wait on frames without any build's codec. */
  readonly opcode: number;
  readonly streamId: number;
  readonly seq: number;
  readonly fault?: 'dropped' | 'injected';
}

const INPUT_OPCODE = 7;

/** The wire v1 header fields; the bytes past it are the payload. */
export function peekHeader(bytes: Uint8Array): { opcode: number; streamId: number; seq: number } {
  if (bytes.length < 16) return { opcode: -1, streamId: -1, seq: -1 };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { opcode: bytes[2]!, streamId: view.getUint32(4, true), seq: view.getUint32(8, true) * 2 ** 32 + view.getUint32(12, true) };
}

export type DropMode = 'close' | 'silent';

export interface Upstream {
  readonly url: string;
  readonly token: string;
}

interface Pair {
  readonly id: number;
  readonly client: ClientLabel;
  readonly downstream: WebSocket;
  readonly upstream: WebSocket;
  blackholed: boolean;
}

/**
 * Sits in the middle of the real socket between a client process and a host
 * process: every binary message is one frame, recorded with its direction and
 * step, then forwarded. It answers WebSocket pings itself on both sides, so a
 * silent drop (no close, no pong) looks to both peers like a network black hole.
 */
export class RecordingProxy {
  readonly frames: ProxiedFrame[] = [];
  step = 'setup';
  private server?: WebSocketServer;
  private readonly pairs = new Set<Pair>();
  private connections = 0;
  private holding = false;
  private readonly held: Array<() => void> = [];
  /** Armed by dropSequencedInput or duplicateSequencedInput: how many more sequenced Inputs of that client pass before the fault. */
  private inputFault: { client: ClientLabel; passBefore: number; fault: 'drop' | 'duplicate' } | undefined;

  private upstream: Promise<Upstream>;
  private setUpstream!: (upstream: Upstream) => void;
  /** What clients must present to the proxy; the proxy presents the host's own token upstream. */
  readonly token = randomBytes(16).toString('hex');

  constructor() {
    this.upstream = new Promise((resolve) => (this.setUpstream = resolve));
  }

  /**
   * While set, a new client connection waits, unread, until it is cleared: a
   * reconnect made during the drop step then crosses the wire in the next
   * step, whatever the timing of the barrier's polls.
   */
  set holdNewConnections(hold: boolean) {
    this.holding = hold;
    if (!hold) for (const release of this.held.splice(0)) release();
  }

  /** Where the host listens; clients that connect earlier wait for it, so both peers can start at once. */
  connectTo(upstream: Upstream): void {
    this.setUpstream(upstream);
  }

  get connectionCount(): number {
    return this.connections;
  }

  async listen(): Promise<string> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: false, maxPayload: 64 * 1024 * 1024 });
    this.server = server;
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (downstream, request) => {
      if (request.headers.authorization !== `Bearer ${this.token}`) return downstream.close(1008, 'wrong proxy token');
      // Read nothing until the host is known (and the connection is not held): a message without a listener would be lost.
      downstream.pause();
      const released = this.holding ? new Promise<void>((resolve) => this.held.push(resolve)) : Promise.resolve();
      void Promise.all([this.upstream, released]).then(([upstream]) => {
        if (downstream.readyState !== WebSocket.OPEN) return;
        this.bridge(downstream, upstream, request.url?.startsWith('/second') ? 'second' : 'primary');
        downstream.resume();
      });
    });
    const { port } = server.address() as AddressInfo;
    return `ws://127.0.0.1:${port}`;
  }

  /**
   * A fault: of the client's next sequenced Inputs (seq > 0), `passBefore` are
   * forwarded and the one after them is not, so the host sees a gap.
   */
  dropSequencedInput(client: ClientLabel, passBefore: number): void {
    this.inputFault = { client, passBefore, fault: 'drop' };
  }

  /**
   * A fault: of the client's next sequenced Inputs, `passBefore` are forwarded
   * once and the one after them twice (the copy recorded as injected), as a
   * broken middlebox or a replaying load balancer would; the ledger must apply it once.
   */
  duplicateSequencedInput(client: ClientLabel, passBefore: number): void {
    this.inputFault = { client, passBefore, fault: 'duplicate' };
  }

  /**
   * A fault: writes `bytes` toward the host on the client's live connection,
   * as if the client had sent them; recorded as injected. False when that client has no live connection.
   */
  inject(client: ClientLabel, bytes: Uint8Array): boolean {
    const pair = [...this.pairs].find((p) => p.client === client && !p.blackholed && p.upstream.readyState === WebSocket.OPEN);
    if (!pair) return false;
    this.record('clientToHost', bytes, pair, 'injected');
    pair.upstream.send(bytes);
    return true;
  }

  private record(direction: FrameDirection, bytes: Uint8Array, pair: Pair, fault?: 'dropped' | 'injected'): void {
    this.frames.push({ direction, step: this.step, bytes, connection: pair.id, client: pair.client, ...peekHeader(bytes), ...(fault ? { fault } : {}) });
  }

  /** The armed fault, when this client-to-host frame is the sequenced Input it strikes. */
  private inputFaultNow(pair: Pair, bytes: Uint8Array): 'drop' | 'duplicate' | undefined {
    const armed = this.inputFault;
    if (!armed || armed.client !== pair.client) return undefined;
    const { opcode, seq } = peekHeader(bytes);
    if (opcode !== INPUT_OPCODE || seq === 0) return undefined;
    if (armed.passBefore-- > 0) return undefined;
    this.inputFault = undefined;
    return armed.fault;
  }

  private bridge(downstream: WebSocket, target: Upstream, client: ClientLabel): void {
    const id = ++this.connections;
    const upstream = new WebSocket(target.url, { headers: { authorization: `Bearer ${target.token}` }, autoPong: false, maxPayload: 64 * 1024 * 1024 });
    const pair: Pair = { id, client, downstream, upstream, blackholed: false };
    this.pairs.add(pair);
    const held: Uint8Array[] = [];
    const toHost = (bytes: Uint8Array) => (upstream.readyState === WebSocket.OPEN ? upstream.send(bytes) : held.push(bytes));
    upstream.once('open', () => {
      for (const bytes of held.splice(0)) upstream.send(bytes);
    });
    downstream.on('message', (data, isBinary) => {
      if (pair.blackholed || !isBinary) return;
      const bytes = copyBytes(data);
      const fault = this.inputFaultNow(pair, bytes);
      if (fault === 'drop') return this.record('clientToHost', bytes, pair, 'dropped');
      this.record('clientToHost', bytes, pair);
      toHost(bytes);
      if (fault === 'duplicate') {
        this.record('clientToHost', bytes, pair, 'injected');
        toHost(bytes);
      }
    });
    upstream.on('message', (data, isBinary) => {
      if (pair.blackholed || !isBinary) return;
      const bytes = copyBytes(data);
      this.record('hostToClient', bytes, pair);
      if (downstream.readyState === WebSocket.OPEN) downstream.send(bytes);
    });
    downstream.on('ping', (data) => !pair.blackholed && downstream.pong(data));
    upstream.on('ping', (data) => !pair.blackholed && upstream.pong(data));
    const teardown = () => {
      // A black hole forwards nothing, closes included: each peer must find out by its own liveness.
      if (pair.blackholed) {
        if (downstream.readyState === WebSocket.CLOSED && upstream.readyState === WebSocket.CLOSED) this.pairs.delete(pair);
        return;
      }
      this.pairs.delete(pair);
      downstream.terminate();
      upstream.terminate();
    };
    downstream.on('close', teardown);
    upstream.on('close', teardown);
    downstream.on('error', teardown);
    upstream.on('error', teardown);
  }

  /** Drops every live connection of the client: with a close, or silently (nothing more is forwarded or answered). */
  drop(mode: DropMode, client: ClientLabel = 'primary'): void {
    for (const pair of this.pairs) {
      if (pair.blackholed || pair.client !== client) continue;
      if (mode === 'close') {
        pair.downstream.terminate();
        pair.upstream.terminate();
      } else {
        pair.blackholed = true;
      }
    }
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.downstream.terminate();
      pair.upstream.terminate();
    }
    this.pairs.clear();
    const server = this.server;
    if (!server) return;
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function copyBytes(data: WebSocket.RawData): Uint8Array {
  const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  return new Uint8Array(buffer);
}
