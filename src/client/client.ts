import type { Frame } from '../codec/header.js';
import { decodeFrame } from '../codec/header.js';
import { Op } from '../codec/opcodes.js';
import { decodePayloadAs } from '../codec/payload.js';
import type { FrameLink } from '../transport/link.js';
import { TypedEmitter } from './emitter.js';
import { type ClientOptions, type ClientOptionsInput, resolveClientOptions } from './options.js';
import { parseErrorText } from './output-tracker.js';
import type { ClientProblem, ClientProblemCode } from './problems.js';
import { backoffDelayMs } from './reconnect.js';
import { ClientStream, type StreamContext, type SubscribeOptions } from './stream.js';

export type ClientState = 'idle' | 'connecting' | 'connected' | 'waitingToReconnect' | 'closed';

export interface ClientEvents {
  /** The first connection is up. */
  connected: { readonly attempt: number };
  /** A connection is up again after a loss; every stream is being re-subscribed. */
  reconnected: { readonly attempt: number };
  /** The link closed or liveness declared it dead. */
  /** `lastHeardAt`: Date.now() when the host was last heard from on that link (an outage began then, not when it was noticed). */
  disconnected: { readonly reason: string; readonly lastHeardAt: number };
  /** A connect attempt will be made after `delayMs`. */
  reconnecting: { readonly attempt: number; readonly delayMs: number; readonly reason: string };
  /** An Error frame on the control stream (0). */
  errorFrame: { readonly code: string; readonly message: string };
  /** Anything the host did wrong, from the connection or any stream; counted in counters.problems. */
  problem: ClientProblem;
  closed: Record<string, never>;
}

export interface ClientCounters {
  connects: number;
  connectFailures: number;
  disconnects: number;
  framesReceived: number;
  framesSent: number;
  /** Problems by code, connection and streams together (UNKNOWN_OPCODE counts unknown frames). */
  problems: Partial<Record<ClientProblemCode, number>>;
}

/**
 * The reference client: many terminal streams multiplexed over one
 * connection, re-established with backoff whenever it drops.
 */
export class TerminalClient extends TypedEmitter<ClientEvents> {
  readonly options: ClientOptions;
  readonly counters: ClientCounters = { connects: 0, connectFailures: 0, disconnects: 0, framesReceived: 0, framesSent: 0, problems: {} };
  private currentState: ClientState = 'idle';
  private link: FrameLink | undefined;
  private readonly streams = new Map<number, ClientStream>();
  private nextStreamId = 1;
  private nextRequest = 1;
  private failedAttempts = 0;
  private everConnected = false;
  private reconnectTimer: unknown;
  private readonly context: StreamContext;

  constructor(options: ClientOptionsInput) {
    super();
    this.options = resolveClientOptions(options);
    this.context = {
      options: this.options,
      send: (frame) => this.sendFrame(frame),
      nextRequestId: () => `r${this.nextRequest++}`,
      released: (stream) => this.streams.delete(stream.id),
    };
  }

  get state(): ClientState {
    return this.currentState;
  }

  get connected(): boolean {
    return this.link?.isOpen ?? false;
  }

  /** Date.now() when the host was last heard from on the current link; undefined when there is none or its transport does not say. */
  get lastHeardAt(): number | undefined {
    return this.link?.lastHeardAt;
  }

  /** Streams not yet closed, by stream id. */
  get openStreams(): ReadonlyMap<number, ClientStream> {
    return this.streams;
  }

  start(): void {
    if (this.currentState !== 'idle') return;
    this.connectNow();
  }

  /** Attaches a terminal; subscribes now when connected, else on the next connection. */
  subscribe(terminal: string, opts: SubscribeOptions = {}): ClientStream {
    if (this.currentState === 'closed') throw new Error(`subscribe('${terminal}') on a closed TerminalClient`);
    const stream = new ClientStream(this.nextStreamId++, terminal, this.context, opts);
    stream.on('problem', (problem) => this.problem(problem));
    this.streams.set(stream.id, stream);
    if (this.connected) stream.connectionUp();
    return stream;
  }

  /** Stops reconnecting, closes the link and every stream. */
  close(): void {
    if (this.currentState === 'closed') return;
    this.currentState = 'closed';
    if (this.reconnectTimer !== undefined) this.options.scheduler.clearTimeout(this.reconnectTimer);
    const link = this.link;
    this.link = undefined;
    link?.close('closed by client');
    for (const stream of [...this.streams.values()]) {
      stream.connectionDown();
      stream.finishClose();
    }
    this.emit('closed', {});
  }

  private connectNow(): void {
    this.reconnectTimer = undefined;
    this.currentState = 'connecting';
    this.options.connect().then(
      (link) => this.onLink(link),
      (error: unknown) => {
        if (this.currentState === 'closed') return;
        this.counters.connectFailures++;
        this.scheduleReconnect(`connect failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  private onLink(link: FrameLink): void {
    if (this.currentState === 'closed') {
      link.close('client closed while connecting');
      return;
    }
    this.link = link;
    this.currentState = 'connected';
    this.counters.connects++;
    const attempt = this.failedAttempts;
    this.failedAttempts = 0;
    link.attach({ frame: (bytes) => this.onBytes(link, bytes), close: (reason) => this.onLinkClosed(link, reason) });
    if (this.link !== link) return; // closed while delivering held frames
    for (const stream of [...this.streams.values()]) stream.connectionUp();
    if (this.everConnected) this.emit('reconnected', { attempt });
    else this.emit('connected', { attempt });
    this.everConnected = true;
  }

  private onLinkClosed(link: FrameLink, reason: string): void {
    if (this.link !== link) return;
    this.link = undefined;
    this.counters.disconnects++;
    for (const stream of [...this.streams.values()]) stream.connectionDown();
    this.emit('disconnected', { reason, lastHeardAt: link.lastHeardAt ?? Date.now() });
    if (this.currentState !== 'closed') this.scheduleReconnect(reason);
  }

  private scheduleReconnect(reason: string): void {
    const delayMs = backoffDelayMs(this.failedAttempts, this.options);
    this.failedAttempts++;
    this.currentState = 'waitingToReconnect';
    this.emit('reconnecting', { attempt: this.failedAttempts, delayMs, reason });
    this.reconnectTimer = this.options.scheduler.setTimeout(() => this.connectNow(), delayMs);
  }

  private sendFrame(frame: Uint8Array): void {
    const link = this.link;
    if (!link?.isOpen) return;
    this.counters.framesSent++;
    link.send(frame);
  }

  private onBytes(link: FrameLink, bytes: Uint8Array): void {
    if (this.link !== link) return;
    this.counters.framesReceived++;
    const decoded = decodeFrame(bytes);
    if (!decoded.ok) {
      const { error } = decoded;
      const code = error.code === 'UNKNOWN_OPCODE' ? 'UNKNOWN_OPCODE' : 'BAD_FRAME';
      this.problem({ code, message: error.message, opcode: error.opcode, streamId: error.streamId, seq: error.seq });
      return;
    }
    const { frame } = decoded;
    if (frame.streamId === 0) return this.onControlFrame(frame);
    const stream = this.streams.get(frame.streamId);
    if (!stream) {
      this.problem({ code: 'UNKNOWN_STREAM', message: `frame opcode ${frame.opcode} for stream ${frame.streamId}, which this client has not subscribed`, streamId: frame.streamId, opcode: frame.opcode, seq: frame.seq });
      return;
    }
    stream.handleFrame(frame);
  }

  private onControlFrame(frame: Frame): void {
    if (frame.opcode === Op.Error) {
      const text = decodePayloadAs('Error', frame);
      if (text.ok) this.emit('errorFrame', parseErrorText(text.value));
      else this.problem({ code: 'BAD_FRAME', message: text.error.message, streamId: 0, opcode: frame.opcode, seq: frame.seq });
      return;
    }
    this.problem({ code: 'UNKNOWN_STREAM', message: `opcode ${frame.opcode} on control stream 0, where only Error is expected from a host`, streamId: 0, opcode: frame.opcode, seq: frame.seq });
  }

  private problem(problem: ClientProblem): void {
    this.counters.problems[problem.code] = (this.counters.problems[problem.code] ?? 0) + 1;
    this.emit('problem', problem);
  }
}
