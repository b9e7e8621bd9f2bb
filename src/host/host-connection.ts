import { hasCapability, negotiate } from '../capabilities/negotiate.js';
import { type ProjectionRegistry, StreamProjections } from '../capabilities/projections.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import { receivedFrameAllowed, type SendGateMode } from '../capabilities/send-gate.js';
import type { WireError } from '../codec/errors.js';
import { decodeFrame, type Frame } from '../codec/header.js';
import { Op, opcodeName, opcodeSpec } from '../codec/opcodes.js';
import { decodePayload, encodePayload, type PayloadInput } from '../codec/payload.js';
import { encodeFrame } from '../codec/header.js';
import type { SubscribePayload } from '../codec/schemas.js';
import { decideResume } from './resume-decision.js';
import type { RememberedExit } from './exit-memory.js';
import type { InputLedger } from '../delivery/ledger.js';
import type { FrameLink } from '../transport/link.js';
import { FlowWindow } from './flow-window.js';
import { HostStream, type StreamContext } from './host-stream.js';
import type { HostedTerminal } from './hosted-terminal.js';
import { LinkGuard } from './link-guard.js';
import { CLOSE_POLICY_VIOLATION, type HostCloseReason, type HostCounters, type HostErrorCode, type HostLimits } from './options.js';
import { RateBucket } from './rate-bucket.js';
import { screenSizeRefusal } from './screen-limits.js';
import type { SnapshotShare } from './snapshot-share.js';
import type { StartTurns } from './start-turns.js';

/**
 * Who a terminal is started for, as maxTerminalsPerConnection counts it: the
 * connection's network (a string from the transport) when it has one, so a
 * reconnect does not start the count again; else the connection itself.
 */
export type Starter = object | string;

/** A terminal for a Subscribe, or why there is none (an Error code and its message). */
export type TerminalLookup = { readonly terminal: HostedTerminal } | { readonly refused: HostErrorCode; readonly message: string };

/** What a connection needs from the runtime. */
export interface ConnectionHost {
  readonly limits: HostLimits;
  readonly counters: HostCounters;
  readonly capabilities: CapabilitySet;
  readonly gateMode: SendGateMode | undefined;
  readonly projections: ProjectionRegistry;
  readonly ledger: InputLedger;
  /** The host-wide snapshot byte budget, shared by the connections spending it (maxTotalSnapshotBytesPerSecond). */
  readonly snapshotShare: SnapshotShare;
  /** The terminal by name, started on first use on behalf of `starter`, or why not (see TerminalLookup). */
  terminalFor(name: string, starter: Starter, environment?: Readonly<Record<string, string>>): TerminalLookup;
  /** Whether a terminal of this name runs: a Subscribe to it starts nothing. */
  hasTerminal(name: string): boolean;
  /** How the terminal instance `instanceId` of this name ended, while the host remembers it (rememberedExits). */
  exitOf(name: string, instanceId: string): RememberedExit | undefined;
  /** Terminal starts, one per turn of the event loop. */
  readonly terminalStarts: StartTurns;
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
  private readonly guard: LinkGuard;
  private readonly errorReplies: RateBucket;
  private readonly snapshotRequests: RateBucket;
  /** Bytes of snapshots sent, for maxSnapshotBytesPerSecond: a Subscribe waits while it is in debt. */
  private readonly snapshotBytes: RateBucket;
  /** Subscribes whose snapshot waits for its turn (snapshotRequests and snapshotBytes), oldest first (at most maxStreamsPerConnection). */
  private readonly waitingSubscribes: Array<{ readonly stream: HostStream; readonly start: () => void }> = [];
  private waitingTimer: NodeJS.Timeout | undefined;

  /** What started terminals count against (see Starter). */
  private readonly starter: Starter;
  /** Frames read while a Subscribe waits for its terminal's start turn (StartTurns), handled in order when it comes; the link is not read meanwhile. */
  private readonly framesWaitingToStart: Uint8Array[] = [];
  /** This connection's start turn came and no terminal was started in it yet. */
  private holdsStartTurn = false;

  constructor(
    private readonly link: FrameLink,
    private readonly host: ConnectionHost,
    source?: string,
  ) {
    this.starter = source ?? this;
    this.window = new FlowWindow(host.limits.connectionWindowInitialBytes, host.limits.connectionWindowMaxBytes);
    this.guard = new LinkGuard(link, host.limits, { drained: () => this.drained(), overLimit: (reason, message) => this.closeForLimit(reason, message) });
    this.errorReplies = new RateBucket(host.limits.maxErrorRepliesPerSecond);
    this.snapshotRequests = new RateBucket(host.limits.maxSnapshotRequestsPerSecond);
    this.snapshotBytes = new RateBucket(host.limits.maxSnapshotBytesPerSecond);
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

  /** True while the link holds more than linkSoftBufferedBytes: streams stop feeding it. */
  get congested(): boolean {
    return this.guard.congested;
  }

  /** Every open stream of this connection. */
  openStreams(): IterableIterator<HostStream> {
    return this.streams.values();
  }

  /** The stream with this id, for inspection. */
  stream(id: number): HostStream | undefined {
    return this.streams.get(id);
  }

  sendFrame(bytes: Uint8Array): void {
    if (this.closed) return;
    this.link.send(bytes);
    this.guard.sent();
  }

  sendError(streamId: number, code: HostErrorCode, message: string): void {
    if (this.closed) return;
    if (!this.errorReplies.take()) {
      return this.closeForLimit('ERROR_RATE', `more than ${this.host.limits.maxErrorRepliesPerSecond} Error replies in a second > maxErrorRepliesPerSecond ${this.host.limits.maxErrorRepliesPerSecond}`);
    }
    if (this.guard.congested) {
      this.host.counters.congestedErrorsDropped++;
      return;
    }
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

  /** Closes with 1008 and "CODE: message": the peer went past a limit. Other connections never notice. */
  closeForLimit(reason: HostCloseReason, message: string): void {
    if (this.closed) return;
    const counts = this.host.counters.limitCloses;
    counts[reason] = (counts[reason] ?? 0) + 1;
    this.link.close(`${reason}: ${message}`, CLOSE_POLICY_VIOLATION);
    this.dispose();
  }

  snapshotSent(bytes: number): void {
    this.snapshotBytes.spend(bytes);
    this.host.snapshotShare.spent(this);
  }

  /** This connection's bucket of snapshot bytes at its share of the host's budget now. */
  private snapshotBytesAtShare(): RateBucket {
    this.snapshotBytes.setRate(Math.min(this.host.limits.maxSnapshotBytesPerSecond, this.host.snapshotShare.share(this)));
    return this.snapshotBytes;
  }

  /** A request that spends a snapshot; false (and the connection closed) past the rate. */
  spendSnapshot(): boolean {
    if (this.snapshotRequests.take()) return true;
    this.closeForLimit('SNAPSHOT_RATE', `more than ${this.host.limits.maxSnapshotRequestsPerSecond} snapshot requests in a second > maxSnapshotRequestsPerSecond ${this.host.limits.maxSnapshotRequestsPerSecond}`);
    return false;
  }

  private drained(): void {
    for (const stream of this.streams.values()) stream.resumeAfterCongestion();
  }

  private refuseSize(streamId: number, refusal: string): void {
    this.host.counters.limitRefusals++;
    this.sendError(streamId, 'RESIZE_TOO_LARGE', refusal);
  }

  private receive(bytes: Uint8Array): void {
    if (this.closed) return;
    if (this.framesWaitingToStart.length > 0) return void this.framesWaitingToStart.push(bytes);
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
    if (frame.opcode === Op.Subscribe) {
      const request = payload.value as SubscribePayload;
      if (!this.host.hasTerminal(request.terminal) && !this.holdsStartTurn && !this.host.terminalStarts.free) return this.waitToStart(bytes);
      return this.subscribe(request);
    }
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
        const refusal = stream.terminal.resize(cols, rows);
        if (refusal) this.refuseSize(stream.id, refusal);
        return;
      }
      case Op.SnapshotRequest:
        if (this.spendSnapshot()) stream.requestSnapshot('request', (value as { requestId?: string }).requestId);
        return;
      case Op.Ack:
        stream.acked((value as { bytes: number }).bytes);
        for (const s of this.streams.values()) s.flush();
        return;
      case Op.SetOutputPaused: {
        const { paused } = value as { paused: boolean };
        // Resuming answers with a snapshot: a pause/resume loop is a snapshot flood.
        if (paused || !stream.isPaused || this.spendSnapshot()) stream.setPaused(paused);
        return;
      }
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
    if (this.streams.size >= this.host.limits.maxStreamsPerConnection) {
      this.host.counters.limitRefusals++;
      return this.sendError(streamId, 'TOO_MANY_STREAMS', `stream ${streamId} would be number ${this.streams.size + 1} > maxStreamsPerConnection ${this.host.limits.maxStreamsPerConnection}`);
    }
    const viewportRefusal = request.viewport && screenSizeRefusal(request.viewport.cols, request.viewport.rows, this.host.limits);
    if (viewportRefusal) return this.refuseSize(streamId, viewportRefusal);
    const negotiated = negotiate(request.capabilities, this.host.capabilities);
    const exited = hasCapability(negotiated, 'outputResume') && request.resumeInstanceId !== undefined ? this.host.exitOf(request.terminal, request.resumeInstanceId) : undefined;
    if (exited) return this.answerExited(streamId, negotiated, request, exited);
    const found = this.host.terminalFor(request.terminal, this.starter, request.environment);
    this.holdsStartTurn = false;
    if ('refused' in found) return this.sendError(streamId, found.refused, found.message);
    const { terminal } = found;
    // Compared with the size the terminal is going to (a coalesced resize may be pending): the last size asked for wins.
    const planned = terminal.plannedSize;
    if (request.viewport && (request.viewport.cols !== planned.cols || request.viewport.rows !== planned.rows)) {
      // The host-wide screen budget can refuse what fits one screen: the Subscribe is refused, as an oversized viewport is.
      const refusal = terminal.resize(request.viewport.cols, request.viewport.rows);
      if (refusal) return this.refuseSize(streamId, refusal);
    }
    this.closedIds.delete(streamId);
    // Sequenced only when both sides speak inputAck and the client named its input session.
    const inputSession = hasCapability(negotiated, 'inputAck') && request.inputSessionId !== undefined ? this.host.ledger.open(terminal.name, request.inputSessionId) : undefined;
    const stream = new HostStream(streamId, terminal, negotiated, this, inputSession);
    this.streams.set(streamId, stream);
    this.whenSnapshotAllowed(stream, () => this.startStream(stream, request));
  }

  /**
   * A Subscribe's snapshot costs what a requested one does, so it spends the
   * same tokens (maxSnapshotRequestsPerSecond) and its bytes
   * (maxSnapshotBytesPerSecond); without them it waits its turn, and only
   * this connection waits: Subscribe/Unsubscribe churn slows the churner. A
   * stream closed meanwhile is never started; one closed after it started
   * stays charged what it was expected to cost.
   */
  private whenSnapshotAllowed(stream: HostStream, start: () => void): void {
    if (this.waitingSubscribes.length === 0 && this.snapshotBytesAtShare().msUntilToken() === 0 && this.snapshotRequests.take()) return this.prepay(stream, start);
    stream.waitingToStart = true;
    this.host.counters.subscribesPaced++;
    this.waitingSubscribes.push({ stream, start });
    this.startWaitingSubscribes();
  }

  private startWaitingSubscribes(): void {
    if (this.waitingTimer || this.closed) return;
    while (this.waitingSubscribes.length > 0) {
      const next = this.waitingSubscribes[0]!;
      if (this.streams.get(next.stream.id) !== next.stream) {
        this.waitingSubscribes.shift();
        continue;
      }
      // Both: a token of maxSnapshotRequestsPerSecond, and the bytes of snapshots already sent paid off.
      const wait = Math.max(this.snapshotRequests.msUntilToken(), this.snapshotBytesAtShare().msUntilToken());
      if (wait > 0) {
        this.waitingTimer = setTimeout(() => {
          this.waitingTimer = undefined;
          this.startWaitingSubscribes();
        }, wait);
        return;
      }
      this.snapshotRequests.take();
      this.waitingSubscribes.shift();
      next.stream.waitingToStart = false;
      try {
        this.prepay(next.stream, next.start);
      } catch (error) {
        this.internalError(error);
      }
    }
  }

  /** Charges the snapshot a starting stream is about to cost before it is taken: Subscribes sent at once would otherwise all find the bucket paid up. */
  private prepay(stream: HostStream, start: () => void): void {
    stream.prepaidSnapshotBytes = stream.terminal.expectedSnapshotBytes();
    this.snapshotBytes.spend(stream.prepaidSnapshotBytes);
    this.host.snapshotShare.spent(this);
    start();
  }

  private startStream(stream: HostStream, request: SubscribePayload): void {
    const { streamId } = request;
    const { terminal, negotiated, inputSession } = stream;
    const resume = hasCapability(negotiated, 'outputResume') ? decideResume(request, terminal) : undefined;
    const subscribed = (seq: number) =>
      stream.send('Metadata', subscribedEvent(request, negotiated, { name: terminal.name, cols: terminal.cols, rows: terminal.rows, seq, instanceId: terminal.instanceId }, { ...(inputSession ? { inputLedgerId: inputSession.ledgerId } : {}), ...(resume ? { resume: resume.outcome } : {}) }), seq);
    // Replayed output costs the connection what a snapshot would: it is charged to the same bucket.
    if (resume?.outcome === 'resumed') stream.startResumed(request.resumeFrom!, resume.bytes, () => subscribed(request.resumeFrom!));
    else stream.requestSnapshot('subscribe', undefined, subscribed);
    // A late subscriber still learns the title and that the terminal is gone; held until the snapshot is out.
    if (terminal.title !== undefined) stream.title(terminal.title, terminal.seq);
    if (terminal.exit) stream.exit(terminal.exit, terminal.seq);
  }

  /**
   * The instance this client resumes exited while it was away: it learns the
   * exit as a subscriber of that instance would have, and the stream ends
   * there. No new shell starts for it, and nothing it typed meanwhile is
   * typed anywhere. Three small frames, paced as Error replies are.
   */
  private answerExited(streamId: number, negotiated: CapabilitySet, request: SubscribePayload, exited: RememberedExit): void {
    if (!this.errorReplies.take()) {
      return this.closeForLimit('ERROR_RATE', `more than ${this.host.limits.maxErrorRepliesPerSecond} replies to Subscribes of exited terminals in a second > maxErrorRepliesPerSecond ${this.host.limits.maxErrorRepliesPerSecond}`);
    }
    const projections = new StreamProjections(this.projections, streamId, negotiated, this.host.counters);
    const send = (payload: PayloadInput<'Metadata'>) => {
      const projected = projections.project('Metadata', payload, exited.seq);
      if (projected) this.sendFrame(encodeFrame({ opcode: Op.Metadata, streamId, seq: exited.seq, payload: encodePayload('Metadata', projected.payload) }));
    };
    this.host.counters.exitsAnswered++;
    send(subscribedEvent(request, negotiated, exited, { resume: 'exited' }));
    send({ type: 'exit', exitCode: exited.exit.exitCode, signal: exited.exit.signal });
    send({ type: 'unsubscribed', streamId });
    this.rememberClosed(streamId);
  }

  private unsubscribe(stream: HostStream): void {
    // Pruned at once, so Subscribe/Unsubscribe churn cannot pile up waiting entries.
    const waiting = this.waitingSubscribes.findIndex((w) => w.stream === stream);
    if (waiting >= 0) this.waitingSubscribes.splice(waiting, 1);
    stream.send('Metadata', { type: 'unsubscribed', streamId: stream.id }, stream.terminal.seq);
    stream.close();
    this.streams.delete(stream.id);
    this.rememberClosed(stream.id);
  }

  /** Holds `bytes`, a Subscribe that would start a terminal, and what follows it until this connection's start turn. */
  private waitToStart(bytes: Uint8Array): void {
    this.framesWaitingToStart.push(bytes);
    this.link.pauseReading?.();
    this.host.terminalStarts.wait(() => this.takeStartTurn());
  }

  /** Handles the frames that waited, in order, until one waits again for another turn. */
  private takeStartTurn(): void {
    if (this.closed) return;
    this.holdsStartTurn = true;
    const frames = this.framesWaitingToStart.splice(0);
    for (const [i, bytes] of frames.entries()) {
      this.receive(bytes);
      if (this.closed) return;
      if (this.framesWaitingToStart.length > 0) {
        this.framesWaitingToStart.push(...frames.slice(i + 1));
        return;
      }
    }
    this.holdsStartTurn = false;
    this.link.resumeReading?.();
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
    clearTimeout(this.waitingTimer);
    this.waitingSubscribes.length = 0;
    this.framesWaitingToStart.length = 0;
    this.host.snapshotShare.forget(this);
    this.guard.stop();
    for (const stream of this.streams.values()) stream.close();
    this.streams.clear();
    this.host.connectionClosed(this);
  }
}

/** The subscribed event answering `request`, for the terminal instance `at` (running, or remembered after its exit). */
function subscribedEvent(
  request: SubscribePayload,
  negotiated: CapabilitySet,
  at: { readonly name: string; readonly cols: number; readonly rows: number; readonly seq: number; readonly instanceId: string },
  extra: { readonly inputLedgerId?: string; readonly resume?: string },
): PayloadInput<'Metadata'> {
  return {
    type: 'subscribed',
    streamId: request.streamId,
    terminal: at.name,
    cols: at.cols,
    rows: at.rows,
    seq: at.seq,
    truncated: false,
    ...(request.capabilities !== undefined ? { capabilities: negotiated } : {}),
    ...(extra.inputLedgerId !== undefined ? { inputLedgerId: extra.inputLedgerId } : {}),
    instanceId: at.instanceId,
    ...(extra.resume !== undefined ? { resume: extra.resume } : {}),
  };
}
