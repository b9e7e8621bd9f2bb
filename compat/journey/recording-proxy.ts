import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { ClientLabel, ClientProcessLabel, LivenessExchange, ProbeEnd, UnplannedEnd } from '../recording.js';
import { ProbeConnection } from './probe-connection.js';
import { ProxyAdmission, type Upstream } from './proxy-admission.js';
import { copyBytes } from './raw-data.js';
import { withheldFromSubscribe } from './withheld-capability.js';

export type FrameDirection = 'clientToHost' | 'hostToClient';
export type { ClientLabel, ClientProcessLabel } from '../recording.js';

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
const ACK_OPCODE = 13;
const INPUT_ACK_OPCODE = 18;

/** The wire v1 header fields; the bytes past it are the payload. */
export function peekHeader(bytes: Uint8Array): { opcode: number; streamId: number; seq: number } {
  if (bytes.length < 16) return { opcode: -1, streamId: -1, seq: -1 };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { opcode: bytes[2]!, streamId: view.getUint32(4, true), seq: view.getUint32(8, true) * 2 ** 32 + view.getUint32(12, true) };
}

export type DropMode = 'close' | 'silent';

/** A ping the answerer may still owe: who sent it and when. */
interface OwedPing {
  readonly payload: Buffer;
  readonly step: string;
  readonly at: number;
  readonly fromProxy: boolean;
}

/** A ping still owed when its connection ends was unanswered only if the link stayed up this long after it (a pong in flight at close is not a fault). */
const UNANSWERED_AFTER_MS = 3_000;
const PROXY_PING_BYTES = 8;
/**
 * Wrong tokens the probe tries one after another: the third waits for the
 * first two failures' delays (100 + 200 ms on a host that doubles them),
 * long past the three round trips a host without the delay answers in, even
 * on a busy machine.
 */
const WRONG_TOKEN_ATTEMPTS = 3;

export type { Upstream } from './proxy-admission.js';

interface Pair {
  readonly id: number;
  readonly client: ClientProcessLabel;
  readonly downstream: WebSocket;
  readonly upstream: WebSocket;
  blackholed: boolean;
  /** Ended by the proxy (a closing drop, or the journey's end), not by either peer. */
  endedByProxy: boolean;
  /** Pings each side still owes an answer to, oldest first. */
  readonly owed: { client: OwedPing[]; host: OwedPing[] };
  settled: boolean;
}

/** Frames of one client held back by a fault, in arrival order. */
interface Hold {
  readonly client: ClientProcessLabel;
  readonly held: Array<{ pair: Pair; bytes: Uint8Array }>;
}

/**
 * Sits in the middle of the real socket between a client process and a host
 * process: every binary message is one frame, recorded with its direction and
 * step, then forwarded. Pings and pongs are forwarded too, and each answer is
 * recorded (LivenessExchange). A silent drop forwards nothing at all, so it
 * looks to both peers like a network black hole.
 */
export class RecordingProxy extends ProxyAdmission {
  readonly frames: ProxiedFrame[] = [];
  readonly liveness: LivenessExchange[] = [];
  readonly unplannedEnds: UnplannedEnd[] = [];
  readonly probeEnds: ProbeEnd[] = [];
  step = 'setup';
  /** Set once the journey is over: the peers stopping then end their connections as planned. */
  private peersStopping = false;
  private server?: WebSocketServer;
  private readonly pairs = new Set<Pair>();
  /** Connections waiting in their handshake for the host, or for a hold to be lifted. */
  private readonly handshakes = new Set<Socket>();
  /** Armed by dropSequencedInput or duplicateSequencedInput: how many more sequenced Inputs of that client pass before the fault. */
  private inputFault: { client: ClientProcessLabel; passBefore: number; fault: 'drop' | 'duplicate' } | undefined;
  /** Armed by loseInputAck: the client whose next InputAck the proxy loses. */
  private inputAckLoss: ClientProcessLabel | undefined;
  /** Armed by withholdAcks: the client's Acks wait here, unrecorded, until releaseAcks forwards them in order. */
  private ackHold: Hold | undefined;
  /** Armed by holdToClient: every frame the host sends that client waits here, unrecorded, until releaseToClient forwards them in order. */
  private toClientHold: Hold | undefined;
  private probeConnection: ProbeConnection | undefined;

  /** What clients must present to the proxy; the proxy presents the host's own token upstream. */
  readonly token = randomBytes(16).toString('hex');

  /** A capability no host hears of: left out of every Subscribe on its way (withheldFromSubscribe), so the link negotiates without it. */
  constructor(private readonly withheld?: string) {
    super();
  }

  async listen(): Promise<string> {
    const upstreamOf = new WeakMap<IncomingMessage, Upstream>();
    const server = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      autoPong: false,
      maxPayload: 64 * 1024 * 1024,
      // The handshake itself waits until the host is known and the connection is let through: a client whose reconnect is
      // held is still connecting, as behind a slow network, and never pings a link nothing reads (its pong deadline would
      // give that link up, and the next one too, for as long as a slow machine holds them).
      verifyClient: (info, done) => {
        // A wrong token is refused at once, by a close the client can read (below).
        if (info.req.headers.authorization !== `Bearer ${this.token}`) return done(true);
        // Held handshakes are not the server's clients yet: close() ends them itself, or the server would wait for them forever.
        const socket = info.req.socket;
        this.handshakes.add(socket);
        void this.admitted().then((upstream) => {
          this.handshakes.delete(socket);
          upstreamOf.set(info.req, upstream);
          done(true);
        });
      },
    });
    this.server = server;
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (downstream, request) => {
      if (request.headers.authorization !== `Bearer ${this.token}`) return downstream.close(1008, 'wrong proxy token');
      this.bridge(downstream, upstreamOf.get(request)!, request.url?.startsWith('/second') ? 'second' : 'primary');
    });
    const { port } = server.address() as AddressInfo;
    return `ws://127.0.0.1:${port}`;
  }

  /**
   * A fault: of the client's next sequenced Inputs (seq > 0), `passBefore` are
   * forwarded and the one after them is not, so the host sees a gap.
   */
  dropSequencedInput(client: ClientProcessLabel, passBefore: number): void {
    this.inputFault = { client, passBefore, fault: 'drop' };
  }

  /**
   * A fault: of the client's next sequenced Inputs, `passBefore` are forwarded
   * once and the one after them twice (the copy recorded as injected), as a
   * broken middlebox or a replaying load balancer would; the ledger must apply it once.
   */
  duplicateSequencedInput(client: ClientProcessLabel, passBefore: number): void {
    this.inputFault = { client, passBefore, fault: 'duplicate' };
  }

  /**
   * A fault: the host's next InputAck to the client is lost on the way
   * (recorded as dropped), so only the client's stall timer can recover.
   */
  loseInputAck(client: ClientProcessLabel): void {
    this.inputAckLoss = client;
  }

  /**
   * A fault: the client's Acks are held back, as a congested path holds a
   * client's answers, so the host sees no credit returned until releaseAcks.
   */
  withholdAcks(client: ClientProcessLabel): void {
    this.ackHold = { client, held: [] };
  }

  /** Forwards the held Acks in order (recorded as they go) and lets later ones through; how many were held. */
  releaseAcks(): number {
    const hold = this.ackHold;
    this.ackHold = undefined;
    return this.forwardHeld(hold?.held ?? [], 'clientToHost');
  }

  /**
   * A fault: every frame the host sends toward the client waits at the proxy,
   * as on a congested path, while what the client sends still goes through.
   * Pings and pongs are not held, so neither side's liveness is fooled.
   */
  holdToClient(client: ClientProcessLabel): void {
    this.toClientHold = { client, held: [] };
  }

  /** The frames held so far by holdToClient, oldest first. */
  heldToClient(): readonly Uint8Array[] {
    return (this.toClientHold?.held ?? []).map((h) => h.bytes);
  }

  /** Forwards the held frames in order (recorded as they go) and lets later ones through; how many were held. */
  releaseToClient(): number {
    const hold = this.toClientHold;
    this.toClientHold = undefined;
    return this.forwardHeld(hold?.held ?? [], 'hostToClient');
  }

  /** Forwards held frames in order, each recorded as it goes, skipping a connection that died meanwhile; how many were held. */
  private forwardHeld(held: ReadonlyArray<{ pair: Pair; bytes: Uint8Array }>, direction: FrameDirection): number {
    for (const { pair, bytes } of held) {
      const socket = direction === 'clientToHost' ? pair.upstream : pair.downstream;
      if (pair.blackholed || socket.readyState !== WebSocket.OPEN) continue;
      this.record(direction, bytes, pair);
      socket.send(bytes);
    }
    return held.length;
  }

  /**
   * A fault: writes `bytes` toward the host on the client's live connection,
   * as if the client had sent them; recorded as injected. False when that client has no live connection.
   */
  inject(client: ClientProcessLabel, bytes: Uint8Array): boolean {
    const pair = [...this.pairs].find((p) => p.client === client && !p.blackholed && p.upstream.readyState === WebSocket.OPEN);
    if (!pair) return false;
    this.record('clientToHost', bytes, pair, 'injected');
    pair.upstream.send(bytes);
    return true;
  }

  /**
   * The proxy's own connection to the host (ProbeConnection), its frames
   * recorded as the 'probe' client's: opened by the first step that asks, and
   * again once the host has ended it.
   */
  async probe(): Promise<ProbeConnection> {
    if (this.probeConnection && !this.probeConnection.ended) return this.probeConnection;
    const upstream = await this.admitted();
    const connection = ++this.connections;
    const probe = await ProbeConnection.open(upstream, connection, {
      step: () => this.step,
      record: (direction, bytes, fault) => this.record(direction, bytes, { id: connection, client: 'probe' }, fault),
      ended: (end) => this.probeEnds.push(end),
    });
    // One that opened as the journey ended is not left behind.
    if (this.peersStopping) probe.close();
    this.probeConnection = probe;
    return probe;
  }

  /** Flooded frames the live probe's host answered so far: progress for the stall window, never compared. */
  get probeFloodAnswered(): number {
    return this.probeConnection?.floodAnswered ?? 0;
  }

  /**
   * The probe asks the host to upgrade a connection with a wrong token, and
   * again as soon as each is answered (WRONG_TOKEN_ATTEMPTS in all); how the
   * host answered each is recorded as a ProbeEnd, the last with the time since
   * the first was sent: a host slows each attempt from a network that just
   * failed.
   */
  async probeWrongToken(): Promise<void> {
    const upstream = await this.admitted();
    const step = this.step;
    const sent = performance.now();
    for (let failuresBefore = 0; failuresBefore < WRONG_TOKEN_ATTEMPTS; failuresBefore++) {
      const connection = ++this.connections;
      const answer = await ProbeConnection.tryWrongToken(upstream);
      const last = failuresBefore === WRONG_TOKEN_ATTEMPTS - 1 ? { sinceFirstAttemptMs: Math.round(performance.now() - sent), failuresBefore } : {};
      this.probeEnds.push({ step, connection, ...answer, answeredFrames: 0, ...last });
    }
  }

  private record(direction: FrameDirection, bytes: Uint8Array, on: { readonly id: number; readonly client: ClientLabel }, fault?: 'dropped' | 'injected'): void {
    this.frames.push({ direction, step: this.step, bytes, connection: on.id, client: on.client, ...peekHeader(bytes), ...(fault ? { fault } : {}) });
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

  private bridge(downstream: WebSocket, target: Upstream, client: ClientProcessLabel): void {
    const id = ++this.connections;
    const upstream = new WebSocket(target.url, { headers: { authorization: `Bearer ${target.token}` }, autoPong: false, maxPayload: 64 * 1024 * 1024 });
    const pair: Pair = { id, client, downstream, upstream, blackholed: false, endedByProxy: false, owed: { client: [], host: [] }, settled: false };
    this.pairs.add(pair);
    const held: Uint8Array[] = [];
    const toHost = (bytes: Uint8Array) => (upstream.readyState === WebSocket.OPEN ? upstream.send(bytes) : held.push(bytes));
    upstream.once('open', () => {
      for (const bytes of held.splice(0)) upstream.send(bytes);
    });
    downstream.on('message', (data, isBinary) => {
      if (!isBinary) return;
      // Recorded as the host reads it: the journey is the one between a client and a host without the capability.
      const bytes = this.withheld ? withheldFromSubscribe(copyBytes(data), this.withheld) : copyBytes(data);
      // What a client sends into a dead link is recorded, never forwarded: how often it resends there is its behaviour too.
      if (pair.blackholed) return this.record('clientToHost', bytes, pair, 'dropped');
      const fault = this.inputFaultNow(pair, bytes);
      if (fault === 'drop') return this.record('clientToHost', bytes, pair, 'dropped');
      if (this.ackHold?.client === pair.client && peekHeader(bytes).opcode === ACK_OPCODE) return void this.ackHold.held.push({ pair, bytes });
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
      if (this.inputAckLoss === pair.client && peekHeader(bytes).opcode === INPUT_ACK_OPCODE) {
        this.inputAckLoss = undefined;
        return this.record('hostToClient', bytes, pair, 'dropped');
      }
      if (this.toClientHold?.client === pair.client) return void this.toClientHold.held.push({ pair, bytes });
      this.record('hostToClient', bytes, pair);
      if (downstream.readyState === WebSocket.OPEN) downstream.send(bytes);
    });
    this.forwardLiveness(pair);
    const teardown = () => {
      this.settle(pair);
      // A black hole forwards nothing, closes included: each peer must find out by its own liveness.
      if (pair.blackholed) {
        if (downstream.readyState === WebSocket.CLOSED && upstream.readyState === WebSocket.CLOSED) this.pairs.delete(pair);
        return;
      }
      this.pairs.delete(pair);
      downstream.terminate();
      upstream.terminate();
    };
    downstream.on('close', (code) => {
      // 1006: the socket went away without a close frame, as a client's liveness or a crash ends it.
      if (code === 1006 && !pair.blackholed && !pair.endedByProxy && !pair.settled && !this.peersStopping) this.unplannedEnds.push({ step: this.step, connection: pair.id, client: pair.client });
      teardown();
    });
    upstream.on('close', teardown);
    downstream.on('error', teardown);
    upstream.on('error', teardown);
  }

  /** Pings and pongs cross the proxy as they would cross a network; each answer is recorded. */
  private forwardLiveness(pair: Pair): void {
    const { downstream, upstream } = pair;
    const ping = (to: 'client' | 'host', socket: WebSocket, payload: Buffer, fromProxy: boolean) => {
      if (pair.blackholed || socket.readyState > WebSocket.OPEN) return;
      pair.owed[to].push({ payload, step: this.step, at: Date.now(), fromProxy });
      // The client pings at once; the host's socket may still be opening, as frames may (they wait in `held`).
      if (socket.readyState === WebSocket.OPEN) socket.ping(payload);
      else socket.once('open', () => !pair.blackholed && socket.ping(payload));
    };
    const pong = (from: 'client' | 'host', payload: Buffer, onward: WebSocket) => {
      if (pair.blackholed) return;
      const owed = pair.owed[from].shift();
      if (!owed) return; // unsolicited: a pong may be a heartbeat (RFC 6455 5.5.3); not ours to judge
      this.liveness.push({
        step: owed.step,
        connection: pair.id,
        client: pair.client,
        answerer: from,
        outcome: owed.payload.equals(payload) ? 'echoed' : 'otherPayload',
        pingHex: owed.payload.toString('hex'),
        ...(owed.payload.equals(payload) ? {} : { pongHex: payload.toString('hex') }),
      });
      if (!owed.fromProxy && onward.readyState === WebSocket.OPEN) onward.pong(payload);
    };
    downstream.on('ping', (data: Buffer) => ping('host', upstream, data, false));
    upstream.on('ping', (data: Buffer) => ping('client', downstream, data, false));
    downstream.on('pong', (data: Buffer) => pong('client', data, upstream));
    upstream.on('pong', (data: Buffer) => pong('host', data, downstream));
    // A host pings only after its interval, longer than most connections of a journey: ask the client once, as its host would.
    ping('client', downstream, randomBytes(PROXY_PING_BYTES), true);
  }

  /** When a connection ends: a ping owed for longer than a pong could be in flight was never answered. */
  private settle(pair: Pair): void {
    if (pair.settled || pair.blackholed) return;
    pair.settled = true;
    const now = Date.now();
    for (const answerer of ['client', 'host'] as const) {
      for (const owed of pair.owed[answerer].splice(0)) {
        if (now - owed.at < UNANSWERED_AFTER_MS) continue;
        this.liveness.push({ step: owed.step, connection: pair.id, client: pair.client, answerer, outcome: 'unanswered', pingHex: owed.payload.toString('hex') });
      }
    }
  }

  /** Drops every live connection of the client: with a close, or silently (nothing more is forwarded or answered). */
  drop(mode: DropMode, client: ClientProcessLabel = 'primary'): void {
    for (const pair of this.pairs) {
      if (pair.blackholed || pair.client !== client) continue;
      if (mode === 'close') {
        pair.endedByProxy = true;
        pair.downstream.terminate();
        pair.upstream.terminate();
      } else {
        pair.blackholed = true;
      }
    }
  }

  /** The journey is over: what ends from now on, the peers stopping, is planned. */
  journeyEnded(): void {
    this.peersStopping = true;
  }

  async close(): Promise<void> {
    this.peersStopping = true;
    for (const socket of this.handshakes) socket.destroy();
    this.handshakes.clear();
    this.probeConnection?.close();
    for (const pair of this.pairs) {
      this.settle(pair);
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
