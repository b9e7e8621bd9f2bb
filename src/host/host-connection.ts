import { hasCapability, negotiate } from '../capabilities/negotiate.js';
import { type ProjectionRegistry, StreamProjections } from '../capabilities/projections.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import { receivedFrameAllowed, type SendGateMode } from '../capabilities/send-gate.js';
import type { WireError } from '../codec/errors.js';
import { decodeFrame, type Frame } from '../codec/header.js';
import { Op, opcodeName, opcodeSpec } from '../codec/opcodes.js';
import { decodePayload, encodePayload } from '../codec/payload.js';
import { encodeFrame } from '../codec/header.js';
import type { SubscribePayload } from '../codec/schemas.js';
import type { InputLedger } from '../delivery/ledger.js';
import type { FrameLink } from '../transport/link.js';
import { FlowWindow } from './flow-window.js';
import type { HostedTerminal } from './hosted-terminal.js';
import { HostStream, type StreamContext } from './host-stream.js';
import type { HostCounters, HostErrorCode, HostLimits } from './options.js';

/** What a connection needs from the runtime. */
export interface ConnectionHost {
  readonly limits: HostLimits;
  readonly counters: HostCounters;
  readonly capabilities: CapabilitySet;
  readonly gateMode: SendGateMode | undefined;
  readonly projections: ProjectionRegistry;
  readonly ledger: InputLedger;
  /** The terminal by name, created on first use; undefined when there is none. */
  openTerminal(name: string): HostedTerminal | undefined;
  connectionClosed(connection: HostConnection): void;
}

/**
 * One client connection: decodes its frames, owns its streams, and answers
 * every mistake with an Error frame without touching other connections.
 */
export class HostConnection implements StreamContext {
  readonly window: FlowWindow;
  private readonly streams = new Map<number, HostStream>();
  /** Recently unsubscribed ids, oldest first: late frames on them get NOT_SUBSCRIBED. */
  private readonly closedIds = new Set<number>();
  /** Frames on stream 0, or on a stream not (or no longer) subscribed: nothing negotiated. */
  private readonly controlProjections: StreamProjections;
  private closed = false;

  constructor(
    private readonly link: FrameLink,
    private readonly host: ConnectionHost,
  ) {
    this.window = new FlowWindow(host.limits.connectionWindowInitialBytes, host.limits.connectionWindowMaxBytes);
    this.controlProjections = new StreamProjections(host.projections, 0, {}, host.counters);
    link.attach({ frame: (bytes) => this.receive(bytes), close: () => this.dispose() });
  }

  get limits(): HostLimits {
    return this.host.limits;
  }

  get counters(): HostCounters {
    return this.host.counters;
  }

  get gateMode(): SendGateMode | undefined {
    return this.host.gateMode;
  }

  get projections(): ProjectionRegistry {
    return this.host.projections;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** The stream with this id, for inspection. */
  /** Every open stream of this connection. */
  openStreams(): IterableIterator<HostStream> {
    return this.streams.values();
  }

  stream(id: number): HostStream | undefined {
    return this.streams.get(id);
  }

  sendFrame(bytes: Uint8Array): void {
    if (!this.closed) this.link.send(bytes);
  }

  sendError(streamId: number, code: HostErrorCode, message: string): void {
    this.host.counters.errorsSent++;
    const text = (this.streams.get(streamId)?.projections ?? this.controlProjections).project('Error', `${code}: ${message}`, 0);
    if (text) this.sendFrame(encodeFrame({ opcode: Op.Error, streamId, payload: encodePayload('Error', text.payload) }));
  }

  internalError(error: unknown): void {
    this.host.counters.internalErrors++;
    this.sendError(0, 'INTERNAL_ERROR', error instanceof Error ? error.message : String(error));
  }

  close(reason = 'host closed'): void {
    this.link.close(reason);
    this.dispose();
  }

  private receive(bytes: Uint8Array): void {
    if (this.closed) return;
    try {
      this.handle(bytes);
    } catch (error) {
      this.internalError(error);
    }
  }

  private handle(bytes: Uint8Array): void {
    const decoded = decodeFrame(bytes);
    if (!decoded.ok) return this.refuseUndecodable(decoded.error);
    const frame = decoded.frame;
    const spec = opcodeSpec(frame.opcode)!;
    if (spec.direction !== 'clientToHost') {
      this.host.counters.badFrames++;
      return this.sendError(frame.streamId, 'WRONG_DIRECTION', `${spec.name} (${frame.opcode}) is sent by hosts, not clients`);
    }
    const payload = decodePayload(frame, this.host.limits.json);
    if (!payload.ok) {
      this.host.counters.badFrames++;
      return this.sendError(frame.streamId, 'BAD_FRAME', payload.error.message);
    }
    if (frame.opcode === Op.Subscribe) return this.subscribe(payload.value as SubscribePayload);
    const stream = this.ownedStream(frame);
    if (!stream) return;
    if (!receivedFrameAllowed(frame.opcode, stream.negotiated)) {
      this.host.counters.ungatedFrames++;
      return this.sendError(stream.id, 'UNGATED_FRAME', `${opcodeName(frame.opcode)} (${frame.opcode}) needs capability '${spec.gatedBy}', which stream ${stream.id} did not negotiate; ignored`);
    }
    this.dispatch(stream, frame, payload.value);
  }

  private dispatch(stream: HostStream, frame: Frame, value: unknown): void {
    switch (frame.opcode) {
      case Op.Input:
        return stream.input(frame.seq, value as string, this.host.ledger);
      case Op.Resize:
      case Op.ClaimViewport: {
        const { cols, rows } = value as { cols: number; rows: number };
        stream.terminal.resize(cols, rows);
        return;
      }
      case Op.SnapshotRequest:
        stream.requestSnapshot('request', (value as { requestId?: string }).requestId);
        return;
      case Op.Ack:
        stream.acked((value as { bytes: number }).bytes);
        for (const s of this.streams.values()) s.flush();
        return;
      case Op.SetOutputPaused:
        stream.setPaused((value as { paused: boolean }).paused);
        return;
      case Op.Unsubscribe:
        return this.unsubscribe(stream);
      default:
        // Every client-to-host opcode of the table is handled above; a new one lands here until it is.
        this.host.counters.unknownOpcodes++;
        return this.sendError(stream.id, 'UNKNOWN_OPCODE', `opcode ${frame.opcode} (${opcodeName(frame.opcode)}) is not handled by this host; frame dropped`);
    }
  }

  private refuseUndecodable(error: WireError): void {
    const streamId = error.streamId ?? 0;
    if (error.code === 'UNKNOWN_OPCODE') {
      this.host.counters.unknownOpcodes++;
      return this.sendError(streamId, 'UNKNOWN_OPCODE', `opcode ${error.opcode} on stream ${streamId} is not known to this host; frame dropped`);
    }
    this.host.counters.badFrames++;
    this.sendError(streamId, 'BAD_FRAME', error.message);
  }

  private ownedStream(frame: Frame): HostStream | undefined {
    const stream = this.streams.get(frame.streamId);
    if (stream) return stream;
    const name = `${opcodeName(frame.opcode)} (${frame.opcode})`;
    if (this.closedIds.has(frame.streamId)) {
      this.sendError(frame.streamId, 'NOT_SUBSCRIBED', `${name} on stream ${frame.streamId}, which was unsubscribed`);
    } else {
      this.sendError(frame.streamId, 'STREAM_NOT_OWNED', `${name} on stream ${frame.streamId}, which this connection has not subscribed`);
    }
    return undefined;
  }

  private subscribe(request: SubscribePayload): void {
    const { streamId } = request;
    if (this.streams.has(streamId)) {
      // Reported on stream 0: an Error on the live stream would read as that stream's failure.
      return this.sendError(0, 'STREAM_IN_USE', `stream ${streamId} is already subscribed on this connection`);
    }
    const terminal = this.host.openTerminal(request.terminal);
    if (!terminal) return this.sendError(streamId, 'TERMINAL_NOT_FOUND', `no terminal named '${request.terminal}'`);
    this.closedIds.delete(streamId);
    const negotiated = negotiate(request.capabilities, this.host.capabilities);
    if (request.viewport && (request.viewport.cols !== terminal.cols || request.viewport.rows !== terminal.rows)) {
      terminal.resize(request.viewport.cols, request.viewport.rows);
    }
    // Sequenced only when both sides speak inputAck and the client named its input session.
    const inputSession = hasCapability(negotiated, 'inputAck') && request.inputSessionId !== undefined ? this.host.ledger.open(terminal.name, request.inputSessionId) : undefined;
    const stream = new HostStream(streamId, terminal, negotiated, this, inputSession);
    this.streams.set(streamId, stream);
    stream.requestSnapshot('subscribe', undefined, (seq) => {
      stream.send('Metadata', {
        type: 'subscribed',
        streamId,
        terminal: terminal.name,
        cols: terminal.cols,
        rows: terminal.rows,
        seq,
        truncated: false,
        ...(request.capabilities !== undefined ? { capabilities: negotiated } : {}),
        ...(inputSession ? { inputLedgerId: inputSession.ledgerId } : {}),
      }, seq);
    });
    // A late subscriber still learns the title and that the terminal is gone; held until the snapshot is out.
    if (terminal.title !== undefined) stream.title(terminal.title, terminal.seq);
    if (terminal.exit) stream.exit(terminal.exit, terminal.seq);
  }

  private unsubscribe(stream: HostStream): void {
    stream.send('Metadata', { type: 'unsubscribed', streamId: stream.id }, stream.terminal.seq);
    stream.close();
    this.streams.delete(stream.id);
    this.rememberClosed(stream.id);
  }

  private rememberClosed(id: number): void {
    this.closedIds.add(id);
    if (this.closedIds.size > this.host.limits.rememberedClosedStreams) {
      this.closedIds.delete(this.closedIds.values().next().value!);
    }
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.streams.values()) stream.close();
    this.streams.clear();
    this.host.connectionClosed(this);
  }
}
