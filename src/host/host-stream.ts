import { hasCapability } from '../capabilities/negotiate.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import { type ProjectionRegistry, StreamProjections } from '../capabilities/projections.js';
import { SendGate, type SendGateMode } from '../capabilities/send-gate.js';
import { encodeFrame } from '../codec/header.js';
import { OPCODES, type OpcodeName } from '../codec/opcodes.js';
import { encodePayload, type PayloadInput } from '../codec/payload.js';
import type { SnapshotCause } from '../codec/snapshot-cause.js';
import type { InputLedger, LedgerSession } from '../delivery/ledger.js';
import { FlowWindow } from './flow-window.js';
import type { HostedTerminal, TerminalSubscriber } from './hosted-terminal.js';
import type { HostCounters, HostErrorCode, HostLimits } from './options.js';
import type { ScreenSize } from './screen.js';
import { splitUtf8 } from './utf8-chunks.js';
import type { TerminalExit } from './terminal.js';

export type SnapshotSource = SnapshotCause;

/** What a stream needs from the connection that owns it. */
export interface StreamContext {
  readonly limits: HostLimits;
  readonly counters: HostCounters;
  /** The connection's output window, shared by its ackOutput streams. */
  readonly window: FlowWindow;
  readonly gateMode: SendGateMode | undefined;
  /** True while the link holds more than linkSoftBufferedBytes: output and snapshots wait for the drain. */
  readonly congested: boolean;
  /** Per-peer downgrades, applied after the gate (src/capabilities/projection-table.ts). */
  readonly projections: ProjectionRegistry;
  sendFrame(bytes: Uint8Array): void;
  sendError(streamId: number, code: HostErrorCode, message: string): void;
  /** A failure in an asynchronous callback: counted, never thrown into xterm's or the PTY's loop. */
  internalError(error: unknown): void;
  /** A snapshot of this many bytes went to the peer: what it costs is charged to the connection (maxSnapshotBytesPerSecond). */
  snapshotSent?(bytes: number): void;
}

type Held = { readonly kind: 'output'; readonly payload: Uint8Array; readonly seq: number } | { readonly kind: 'event'; readonly send: () => void };

const utf8 = new TextEncoder();

/**
 * One subscribed stream: the terminal's events turned into frames for one
 * client, in an order the client can follow. While a snapshot is being taken
 * everything is held, then output the snapshot already covers is dropped; on
 * ackOutput streams output waits for credit and an overflowing queue is
 * replaced by a recovery snapshot. Every frame goes through the send gate.
 */
export class HostStream implements TerminalSubscriber {
  readonly gate: SendGate;
  readonly projections: StreamProjections;
  private readonly window: FlowWindow | undefined;
  private paused = false;
  /** Withdraws of the snapshots asked for and not yet answered: a closed stream's are not serialised. */
  private readonly pendingSnapshots = new Set<() => void>();
  private held: Held[] = [];
  /** Output waiting for credit, and the events that came after it (an exit must not overtake the output before it). */
  private queue: Held[] = [];
  private queueBytes = 0;
  private open = true;
  /** A snapshot held back while the link was congested; requests coalesce into one (the latest requestId wins). */
  private owedSnapshot: { readonly source: SnapshotSource; readonly requestId?: string } | undefined;
  /** Output was dropped while the link was congested: the client needs a recovery snapshot. */
  private droppedWhileCongested = false;

  constructor(
    readonly id: number,
    readonly terminal: HostedTerminal,
    readonly negotiated: CapabilitySet,
    private readonly ctx: StreamContext,
    /** Set when this stream negotiated inputAck with an inputSessionId: its Input is sequenced. */
    readonly inputSession?: LedgerSession,
  ) {
    this.gate = new SendGate(id, negotiated, ctx.gateMode);
    this.projections = new StreamProjections(ctx.projections, id, negotiated, ctx.counters);
    if (hasCapability(negotiated, 'ackOutput')) {
      this.window = new FlowWindow(ctx.limits.streamWindowInitialBytes, ctx.limits.streamWindowMaxBytes);
    }
    terminal.attach(this);
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** True while SetOutputPaused holds this stream's output back. */
  get isPaused(): boolean {
    return this.paused;
  }

  /** Output bytes waiting for credit. */
  get queuedBytes(): number {
    return this.queueBytes;
  }

  /**
   * Takes a snapshot once the screen has parsed everything before this call;
   * `before` runs first with the snapshot's seq (the subscribed event uses it).
   */
  requestSnapshot(source: SnapshotSource, requestId?: string, before?: (seq: number) => void): void {
    // A subscribe's snapshot always goes: the stream does not exist for the client without it.
    if (source !== 'subscribe' && this.ctx.congested) return this.oweSnapshot(source, requestId);
    const withdraw = this.terminal.screen.snapshot((seq, text, size) => {
      this.pendingSnapshots.delete(withdraw);
      if (!this.open) return;
      try {
        before?.(seq);
        this.sendSnapshot(seq, text, size, source, requestId);
        this.dropCoveredOutput(seq);
        this.releaseHeld();
        this.flush(); // an event the covered output held back at the head of the queue goes now
        this.terminal.reviewSubscriberBacklog();
      } catch (error) {
        this.ctx.internalError(error);
      }
    }, hasCapability(this.negotiated, 'snapshotRepaint') ? 'repaint' : 'wire');
    this.pendingSnapshots.add(withdraw);
  }

  /**
   * Starts the stream where its client's output left off (outputResume):
   * `before` sends the subscribed event, then the held bytes after `fromSeq`
   * go as Output under the stream's window, as live output would have.
   */
  startResumed(fromSeq: number, bytes: Uint8Array, before: () => void): void {
    before();
    let seq = fromSeq;
    for (const piece of splitUtf8(bytes, this.ctx.limits.outputFrameBytes)) {
      seq += piece.length;
      this.deliverOutput(piece, seq);
    }
    this.ctx.snapshotSent?.(bytes.length - this.prepaidSnapshotBytes);
    this.prepaidSnapshotBytes = 0;
  }

  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    if (paused) this.clearQueue();
    else this.requestSnapshot('resume');
    this.terminal.reviewSubscriberBacklog();
  }

  /** Output waiting for credit, while this stream holds its program back (see HostedTerminal.reviewSubscriberBacklog). */
  queuedOutputBytes(): number | undefined {
    return this.open && this.window && !this.paused ? this.queueBytes : undefined;
  }

  /** Credits an Ack; the connection then flushes its streams. */
  acked(bytes: number): void {
    if (!this.window) return;
    this.ctx.window.acked(this.window.acked(bytes));
  }

  /** The link drained: sends the snapshot owed, or a recovery snapshot for the output dropped. */
  resumeAfterCongestion(): void {
    // Output dropped on a congested link is an overflow, like a queue that overflowed: the snapshot repairs it.
    const recovery = this.owedSnapshot === undefined && this.droppedWhileCongested;
    const owed: { readonly source: SnapshotSource; readonly requestId?: string } | undefined = this.owedSnapshot ?? (recovery ? { source: 'overflow' } : undefined);
    this.owedSnapshot = undefined;
    this.droppedWhileCongested = false;
    if (owed) {
      if (recovery) this.ctx.counters.recoverySnapshots++;
      this.requestSnapshot(owed.source, owed.requestId);
    }
  }

  /** Sends queued output while credit lasts. */
  flush(): void {
    const before = this.queueBytes;
    while (this.open && this.queue.length > 0) {
      const next = this.queue[0]!;
      if (next.kind === 'output' && !this.hasCredit(next.payload.length)) break;
      this.queue.shift();
      if (next.kind === 'event') next.send();
      else {
        this.queueBytes -= next.payload.length;
        this.sendOutput(next.payload, next.seq);
      }
    }
    if (this.queueBytes < before) this.terminal.reviewSubscriberBacklog();
  }

  /**
   * One Input frame. Sequenced input (seq >= 1 on a stream with an input
   * session) is judged by the ledger and answered with InputAck; anything else
   * is written as before: a seq from a stream that did not negotiate it means nothing.
   */
  input(seq: number, data: string, ledger: InputLedger): void {
    const backend = this.terminal.backend;
    if (!this.inputSession || seq === 0) {
      const full = this.inputQueueFull(data);
      if (full) return this.ctx.sendError(this.id, 'WRITE_UNAVAILABLE', `${full}; this input was not written`);
      if (backend.write(data) === 'refused') this.writeRefused();
      return;
    }
    let refused = false;
    // A full queue refuses the write: the ledger asks for a resend, and the journal's backoff paces the client until the program reads.
    const reply = ledger.judge(this.inputSession, seq, data, (d) => {
      const outcome = this.inputQueueFull(d) ? 'refused' : backend.write(d);
      refused ||= outcome === 'refused';
      return outcome;
    });
    this.send('InputAck', { status: reply.status }, reply.seq);
    // The ledger asks for a resend; the client must also learn why, or it resends to an exited terminal forever.
    if (refused && backend.exited) this.writeRefused();
  }

  /** Why `data` may not be queued toward the terminal now (its program is not reading), or undefined. */
  private inputQueueFull(data: string): string | undefined {
    const queued = this.terminal.backend.queuedInputBytes?.() ?? 0;
    const limit = this.ctx.limits.maxQueuedInputBytes;
    if (queued === 0 || queued + Buffer.byteLength(data) <= limit) return undefined;
    return `terminal '${this.terminal.name}' has ${queued} bytes of input queued that its program has not read; ${Buffer.byteLength(data)} more > maxQueuedInputBytes ${limit}`;
  }

  /** Tells the client the terminal refused its input (it exited), in the form it negotiated. */
  writeRefused(): void {
    if (hasCapability(this.negotiated, 'writeUnavailable')) this.send('WriteUnavailable', undefined);
    else this.ctx.sendError(this.id, 'WRITE_UNAVAILABLE', `terminal '${this.terminal.name}' refuses writes (it exited)`);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    for (const withdraw of this.pendingSnapshots) withdraw();
    this.pendingSnapshots.clear();
    this.terminal.detachSubscriber(this);
    if (this.window) this.ctx.window.release(this.window.inFlight);
    this.queue = [];
    this.queueBytes = 0;
    this.held = [];
  }

  /** Sends one frame through the gate; false when the gate refused it. */
  send<N extends OpcodeName>(name: N, payload: PayloadInput<N>, seq = 0): boolean {
    const opcode = OPCODES[name].code;
    if (!this.open || !this.gate.allows(opcode)) return false;
    const projected = this.projections.project(name, payload, seq);
    if (!projected) return false;
    this.ctx.sendFrame(encodeFrame({ opcode, streamId: this.id, seq, payload: encodePayload(name, projected.payload) }));
    return true;
  }

  // TerminalSubscriber: the terminal's events.

  /**
   * Set while the Subscribe that made this stream waits for its snapshot's
   * turn (maxSnapshotRequestsPerSecond, maxSnapshotBytesPerSecond): nothing is sent, and output and
   * events are dropped, since the snapshot taken at the start (with the
   * terminal's title and exit) covers them.
   */
  waitingToStart = false;
  /** Bytes the connection charged when it started this stream (the terminal's expectedSnapshotBytes); the first snapshot sent settles the difference. */
  prepaidSnapshotBytes = 0;

  output(payload: Uint8Array, seqAfter: number): void {
    if (this.waitingToStart) return;
    if (this.pendingSnapshots.size > 0) this.held.push({ kind: 'output', payload, seq: seqAfter });
    else this.deliverOutput(payload, seqAfter);
  }

  resized(cols: number, rows: number, seq: number): void {
    this.event(() => this.send('Resized', { cols, rows, reason: 'resize' }, seq));
  }

  title(title: string, seq: number): void {
    this.event(() => this.send('Metadata', { type: 'title', title }, seq));
  }

  exit(exit: TerminalExit, seq: number): void {
    this.event(() => this.send('Metadata', { type: 'exit', exitCode: exit.exitCode, signal: exit.signal }, seq));
  }

  private event(send: () => void): void {
    if (this.waitingToStart) return;
    if (this.pendingSnapshots.size > 0) this.held.push({ kind: 'event', send });
    else if (this.queue.length > 0) this.queue.push({ kind: 'event', send });
    else send();
  }

  private deliverOutput(payload: Uint8Array, seq: number): void {
    if (!this.open || this.paused) return; // a paused stream resumes with a snapshot
    if (!this.window) {
      // ackOutput streams are bounded by their windows; these have only the link itself as backpressure.
      if (this.ctx.congested) {
        // Dropped, and resynchronised by a recovery snapshot once the link drains.
        this.ctx.counters.congestedOutputBytes += payload.length;
        this.droppedWhileCongested = true;
        return;
      }
      this.sendOutput(payload, seq);
      return;
    }
    if (this.queue.length === 0 && this.hasCredit(payload.length)) {
      this.sendOutput(payload, seq);
      return;
    }
    this.queue.push({ kind: 'output', payload, seq });
    this.queueBytes += payload.length;
    if (this.queueBytes > this.ctx.limits.streamQueueMaxBytes) {
      this.ctx.counters.droppedOutputBytes += this.queueBytes;
      this.ctx.counters.recoverySnapshots++;
      const events = this.queue.filter((q) => q.kind === 'event');
      this.queue = [];
      this.queueBytes = 0;
      this.requestSnapshot('overflow');
      // After the snapshot that repaints the dropped output: an exit must not end a client before its last screen.
      for (const e of events) this.event(e.send);
    }
  }

  private oweSnapshot(source: SnapshotSource, requestId: string | undefined): void {
    if (this.owedSnapshot) this.ctx.counters.coalescedSnapshots++;
    // A request's reply must echo its requestId; a recovery is covered by any snapshot.
    if (source === 'request' || !this.owedSnapshot) this.owedSnapshot = { source, ...(requestId !== undefined ? { requestId } : {}) };
  }

  private hasCredit(bytes: number): boolean {
    const stream = this.window!;
    const connection = this.ctx.window;
    if (!stream.canSend(bytes)) {
      stream.markBlocked();
      return false;
    }
    if (!connection.canSend(bytes)) {
      connection.markBlocked();
      return false;
    }
    return true;
  }

  private sendOutput(output: Uint8Array, seq: number): void {
    if (!this.gate.allows(OPCODES.Output.code)) return;
    const payload = this.projections.projectBytes('Output', output, seq);
    if (!payload) return;
    this.ctx.sendFrame(encodeFrame({ opcode: OPCODES.Output.code, streamId: this.id, seq, payload }));
    if (this.window) {
      this.window.sent(payload.length);
      this.ctx.window.sent(payload.length);
    }
  }

  private sendSnapshot(seq: number, snapshotText: string, { cols, rows }: ScreenSize, cause: SnapshotCause, requestId: string | undefined): void {
    this.send('SnapshotStart', { kind: 'scrollback', cols, rows, ...(requestId !== undefined ? { requestId } : {}), seq, cause, truncated: false }, seq);
    const text = utf8.encode(snapshotText);
    for (const chunk of splitUtf8(text, this.ctx.limits.snapshotChunkBytes)) {
      if (!this.gate.allows(OPCODES.SnapshotChunk.code)) return;
      const payload = this.projections.projectBytes('SnapshotChunk', chunk, seq);
      if (payload) this.ctx.sendFrame(encodeFrame({ opcode: OPCODES.SnapshotChunk.code, streamId: this.id, seq, payload }));
    }
    this.send('SnapshotEnd', undefined, seq);
    this.ctx.counters.snapshotsSent++;
    this.ctx.snapshotSent?.(text.length - this.prepaidSnapshotBytes);
    this.prepaidSnapshotBytes = 0;
    this.terminal.snapshotSent(text.length, seq);
  }

  /** Output up to `seq` is in the snapshot just sent: sending it again would rewind the client. */
  private dropCoveredOutput(seq: number): void {
    this.queue = this.queue.filter((q) => q.kind !== 'output' || q.seq > seq);
    this.queueBytes = this.queue.reduce((sum, q) => sum + (q.kind === 'output' ? q.payload.length : 0), 0);
    this.held = this.held.filter((h) => h.kind !== 'output' || h.seq > seq);
  }

  private releaseHeld(): void {
    // A released output can overflow the queue and start another snapshot: hold the rest again.
    while (this.held.length > 0 && this.pendingSnapshots.size === 0) {
      const item = this.held.shift()!;
      if (item.kind === 'output') this.deliverOutput(item.payload, item.seq);
      else this.event(item.send); // behind output the window has queued, never ahead of it
    }
  }

  /** Drops the queued output; the events queued behind it go now, as they would have once it was sent. */
  private clearQueue(): void {
    this.queue = this.queue.filter((q) => q.kind === 'event');
    this.queueBytes = 0;
    this.flush();
  }
}
