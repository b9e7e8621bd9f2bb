import { hasCapability } from '../capabilities/negotiate.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import { StreamProjections } from '../capabilities/projections.js';
import { SendGate } from '../capabilities/send-gate.js';
import { encodeFrame, type Frame } from '../codec/header.js';
import { OPCODES, type OpcodeName } from '../codec/opcodes.js';
import type { InputAckStatus } from '../codec/input-ack-flags.js';
import { encodePayload, type PayloadInput } from '../codec/payload.js';
import type { SubscribePayload } from '../codec/schemas.js';
import { AckBatcher } from './ack-batcher.js';
import { TypedEmitter } from './emitter.js';
import type { ClientOptions } from './options.js';
import { OutputTracker } from './output-tracker.js';
import type { ClientProblem } from './problems.js';
import type { OutputSink, ReceivingStream, StreamReceiveState } from './receiving-stream.js';
import { LocalScreen } from './screen.js';
import { SnapshotAssembler } from './snapshot-assembler.js';
import { type ClientStreamEvents, emptyStreamCounters, type StreamCounters, type StreamState } from './stream-events.js';
import { INPUT_NOT_APPLIED_CODES } from '../delivery/journal.js';
import { InputNotAppliedError, type PasteHandle, StreamInput } from './stream-input.js';
import { receiveStreamFrame } from './stream-receive.js';
import { StreamResume } from './stream-resume.js';

/** What a stream needs from the client that owns it. */
export interface StreamContext {
  readonly options: ClientOptions;
  /** Sends on the current link; dropped when there is none. */
  send(frame: Uint8Array): void;
  nextRequestId(): string;
  /** The stream is closed for good; the client forgets it. */
  released(stream: ClientStream): void;
}

export type { OutputSink } from './receiving-stream.js';

export interface SubscribeOptions {
  /** Sent in Subscribe; later resize() calls replace it for re-subscriptions. */
  readonly viewport?: { readonly cols: number; readonly rows: number };
  /**
   * Output goes to this sink instead of a local screen: the stream keeps no
   * headless screen (screenLines() throws, whenIdle() waits for nothing) and
   * credits each Output once the sink calls `delivered`, so the host's window
   * bounds what the sink holds. For a consumer that draws output on a real
   * terminal (termwire attach), where a second screen model would only cost
   * parse time. Default undefined: a LocalScreen parses output and credits it.
   */
  readonly outputSink?: OutputSink;
  /** Sent in Subscribe: the TERM and locale a terminal this Subscribe starts should run with (the host keeps what it accepts; pickSessionEnvironment picks them from a process's env). Default none. */
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * One terminal attached over the client's connection. It survives reconnects:
 * the client re-subscribes it on every new connection.
 *
 * Input is exactly-once when the host echoes inputAck (see stream-input.ts):
 * journaled, sequenced, resent after the host's appliedSeq, deduplicated by
 * the host's ledger. With an old host it is sent unsequenced and never resent,
 * so input sent into a dead link before liveness notices is lost there.
 */
export class ClientStream extends TypedEmitter<ClientStreamEvents> implements ReceivingStream {
  readonly counters: StreamCounters = emptyStreamCounters();
  /** Internal to the client: the stream's receive-side state. */
  readonly rx: StreamReceiveState;
  private currentState: StreamState = 'pending';
  private echoed: CapabilitySet = {};
  private readonly gate: SendGate;
  private readonly projections: StreamProjections;
  private viewport: { cols: number; rows: number } | undefined;
  private readonly environment: Readonly<Record<string, string>> | undefined;
  private resizeWhileDown = false;
  private pausedWish = false;
  private readonly input: StreamInput;
  /** The terminal instance the last subscribed event named. */
  private instanceId: string | undefined;
  private readonly resume = new StreamResume();

  constructor(
    readonly id: number,
    readonly terminal: string,
    private readonly ctx: StreamContext,
    opts: SubscribeOptions = {},
  ) {
    super();
    this.viewport = opts.viewport ? { ...opts.viewport } : undefined;
    this.environment = opts.environment && Object.keys(opts.environment).length > 0 ? { ...opts.environment } : undefined;
    this.gate = new SendGate(id, {});
    this.projections = new StreamProjections(ctx.options.projections, id, {}, this.counters);
    const size = opts.viewport ?? ctx.options.initialViewport;
    this.rx = {
      assembler: new SnapshotAssembler(ctx.options.maxSnapshotBytes),
      tracker: new OutputTracker(),
      screen: opts.outputSink ? undefined : new LocalScreen(size.cols, size.rows, ctx.options.scrollbackRows),
      sink: opts.outputSink,
      ackBatcher: undefined,
    };
    this.input = new StreamInput({
      id,
      sendInput: (seq, data) => this.sendInput(seq, data),
      refused: (bytes, limit) => {
        this.counters.inputRefused++;
        this.problem({ code: 'INPUT_REFUSED', message: `held input ${bytes} bytes > maxHeldInputBytes ${limit}`, streamId: this.id });
      },
      notice: (notice) => this.emit('inputNotice', notice),
    }, ctx.options);
  }

  /** Exactly-once input's journal and session id, for inspection. */
  get inputState(): Pick<StreamInput, 'journal' | 'sessionId' | 'sequenced'> {
    return this.input;
  }

  get state(): StreamState {
    return this.currentState;
  }

  /** What this stream advertises in Subscribe. */
  get advertised(): CapabilitySet {
    return this.ctx.options.capabilities;
  }

  /** What the host echoed on the current connection; empty until the echo and while disconnected. */
  get negotiated(): CapabilitySet {
    return this.echoed;
  }

  /** Whether the user wants output paused (hide() without reveal()). */
  get hidden(): boolean {
    return this.pausedWish;
  }

  /** Sends input now when subscribed, else holds it (in order) for the next subscription. False when refused. */
  write(data: string): boolean {
    if (this.currentState === 'closing' || this.currentState === 'closed') return false;
    const accepted = this.input.write(data);
    if (accepted && this.currentState !== 'live') this.counters.inputHeld++;
    return accepted;
  }

  /**
   * Sends input as write() does, and tells how it ended: resolves once the
   * host confirmed it applied it (InputAck), rejects with an
   * InputNotAppliedError whose `code` says why not: DELIVERY_UNKNOWN (it may
   * have run), TERMINAL_REPLACED, TERMINAL_EXITED, LEDGER_CHANGED, OLD_HOST, BUDGET_EXCEEDED,
   * UNCONFIRMABLE (a host without inputAck: sent, never confirmed), CLOSED,
   * REFUSED. write() keeps its boolean: its callers ignore or test it, and a
   * promise nobody awaits would reject unhandled.
   */
  writeApplied(data: string): Promise<void> {
    if (this.currentState === 'closing' || this.currentState === 'closed') return Promise.reject(new InputNotAppliedError('REFUSED', INPUT_NOT_APPLIED_CODES.REFUSED));
    if (this.currentState !== 'live') this.counters.inputHeld++;
    return this.input.writeApplied(data);
  }

  /**
   * Pastes text as chunks of at most 16 KiB, each its own sequence; the
   * handle's cancel() withdraws the chunks the host has not confirmed, and
   * nothing typed before or after. Undefined when refused.
   */
  paste(text: string): PasteHandle | undefined {
    if (this.currentState === 'closing' || this.currentState === 'closed') return undefined;
    return this.input.paste(text);
  }

  resize(cols: number, rows: number): void {
    this.viewport = { cols, rows };
    if (this.currentState === 'live') this.send('Resize', { cols, rows });
    else this.resizeWhileDown = true;
  }

  /**
   * Makes this client the one that drives the terminal's size (ClaimViewport):
   * every subscriber then gets the Resized. Sent only while live; like resize(),
   * remembered as this stream's viewport.
   */
  claimViewport(cols: number, rows: number): void {
    this.viewport = { cols, rows };
    if (this.currentState === 'live') this.send('ClaimViewport', { cols, rows });
  }

  /** Pauses output if the host echoed outputPause; otherwise only remembered (nothing on the wire). */
  hide(): void {
    this.pausedWish = true;
    if (this.currentState === 'live' && hasCapability(this.echoed, 'outputPause')) this.send('SetOutputPaused', { paused: true });
  }

  /** Resumes output (if negotiated) and asks for a fresh snapshot; returns its requestId, or undefined when not subscribed. */
  reveal(): string | undefined {
    this.pausedWish = false;
    if (this.currentState !== 'live') return undefined;
    if (hasCapability(this.echoed, 'outputPause')) this.send('SetOutputPaused', { paused: false });
    return this.requestSnapshot();
  }

  /** Asks the host for a snapshot; output is ignored until one arrives. Returns the requestId. */
  requestSnapshot(): string {
    const requestId = this.ctx.nextRequestId();
    this.rx.tracker.expectSnapshot();
    this.send('SnapshotRequest', { requestId });
    return requestId;
  }

  /** Detaches from the terminal; resolves once the host confirms or the connection is gone. */
  unsubscribe(): Promise<void> {
    this.dropHeldInput();
    if (this.currentState === 'closed') return Promise.resolve();
    const done = this.next('unsubscribed').then(() => undefined);
    if (this.currentState === 'live' || this.currentState === 'subscribing') {
      // Credit goes out before the Unsubscribe and never after it: an Ack on a stream the host has
      // closed is an error there, and output parsed late no longer needs a window.
      this.rx.ackBatcher?.flush();
      this.rx.ackBatcher?.discard();
      this.send('Unsubscribe', undefined);
      this.setState('closing');
    } else {
      this.finishClose();
    }
    return done;
  }

  /** The visible lines of the local screen; throws on a stream subscribed with an outputSink (it has none). */
  screenLines(): string[] {
    if (!this.rx.screen) throw new Error(`stream ${this.id} ('${this.terminal}') has no local screen: it was subscribed with an outputSink`);
    return this.rx.screen.lines();
  }

  /**
   * The visible screen: lines trimmed on the right, trailing blank lines
   * dropped, joined with '\n' (the host's ScreenModel.text() format, so the two compare).
   * Await whenIdle() first.
   */
  screenText(): string {
    const lines = this.screenLines();
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /** Resolves once everything received so far has been parsed by the local screen (at once without one). */
  whenIdle(): Promise<void> {
    return this.rx.screen?.whenIdle() ?? Promise.resolve();
  }

  // ---- called by the client -------------------------------------------------

  /** A connection is up: subscribe on it. */
  connectionUp(): void {
    if (this.currentState !== 'pending') return;
    const payload: SubscribePayload = { streamId: this.id, terminal: this.terminal };
    if (this.ctx.options.clientInfo) payload.client = { ...this.ctx.options.clientInfo };
    if (this.viewport) payload.viewport = { ...this.viewport };
    if (Object.keys(this.advertised).length > 0) payload.capabilities = { ...this.advertised } as Record<string, number>;
    if (this.input.advertised) payload.inputSessionId = this.input.sessionId;
    if (this.environment) payload.environment = { ...this.environment };
    Object.assign(payload, this.resume.subscribeFields(this.advertised));
    this.setState('subscribing');
    this.counters.subscribes++;
    this.send('Subscribe', payload, 0);
  }

  /** The connection is gone: forget everything negotiated on it. */
  connectionDown(): void {
    if (this.currentState === 'live') this.resume.linkLost(this.rx.tracker, this.pausedWish, this.instanceId);
    this.echoed = {};
    this.gate.update({});
    this.projections.update({});
    this.input.down();
    this.rx.ackBatcher?.discard();
    this.rx.ackBatcher = undefined;
    this.rx.assembler.reset();
    this.rx.tracker.reset();
    if (this.currentState === 'closing') this.finishClose();
    else if (this.currentState !== 'closed') this.setState('pending');
  }

  handleFrame(frame: Frame): void {
    receiveStreamFrame(this, frame);
  }

  /** The host echoed `subscribed`: now gated features and held input may go out. */
  subscribed(event: { cols: number; rows: number; seq: number; capabilities?: CapabilitySet | undefined; inputLedgerId?: string | undefined; instanceId?: string | undefined; resume?: string | undefined }): void {
    if (this.currentState !== 'subscribing') return;
    this.echoed = { ...(event.capabilities ?? {}) };
    this.gate.update(this.echoed);
    this.projections.update(this.echoed);
    this.rx.tracker.reset();
    const resume = this.resume.subscribed(this.echoed, event);
    if (resume?.outcome === 'resumed') {
      this.rx.tracker.resumeAt(event.seq);
      // A resize at exactly the resume point is only in subscribed: the replay that follows was laid out at this size.
      this.rx.screen?.resize(event.cols, event.rows);
    }
    this.rx.ackBatcher = hasCapability(this.echoed, 'ackOutput')
      ? new AckBatcher(this.ctx.options, (bytes) => {
          this.counters.acksSent++;
          this.counters.ackedBytes += bytes;
          this.send('Ack', { bytes });
        })
      : undefined;
    this.setState('live');
    const instanceId: unknown = (event as { instanceId?: unknown }).instanceId; // read defensively: hosts before instance ids send none
    this.instanceId = typeof instanceId === 'string' ? instanceId : undefined;
    this.emit('subscribed', { cols: event.cols, rows: event.rows, seq: event.seq, negotiated: this.echoed, ...(typeof instanceId === 'string' ? { instanceId } : {}), ...(resume ? { resume } : {}) });
    if (this.pausedWish && hasCapability(this.echoed, 'outputPause')) this.send('SetOutputPaused', { paused: true });
    if (this.resizeWhileDown && this.viewport) this.send('Resize', this.viewport);
    this.resizeWhileDown = false;
    // The instance exited while the link was down: its exit and unsubscribed follow, and held input goes nowhere.
    if (resume?.outcome === 'exited' && this.instanceId !== undefined) this.input.instanceExited(this.instanceId);
    else this.input.subscribed(this.echoed, event.inputLedgerId, event.instanceId);
  }

  exited(exit: ClientStreamEvents['exit']): void {
    this.resume.exited(this.instanceId);
    this.emit('exit', exit);
  }

  /** An InputAck from the host (only on a stream that negotiated inputAck). */
  inputAcked(seq: number, ack: InputAckStatus): void {
    this.input.acked(seq, ack);
  }

  finishClose(): void {
    if (this.currentState === 'closed') return;
    this.dropHeldInput();
    this.rx.ackBatcher?.flush();
    this.rx.ackBatcher?.discard();
    this.setState('closed');
    this.rx.screen?.dispose();
    this.ctx.released(this);
    this.emit('unsubscribed', { streamId: this.id });
  }

  /** Lets stream-receive.ts raise this stream's events. */
  raise<K extends keyof ClientStreamEvents>(event: K, payload: ClientStreamEvents[K]): void {
    this.emit(event, payload);
  }

  problem(problem: ClientProblem): void {
    this.emit('problem', problem);
  }

  private sendInput(seq: number, data: string): void {
    const projected = this.projections.project('Input', data, seq);
    if (!projected) return;
    this.counters.inputSent++;
    this.ctx.send(encodeFrame({ opcode: OPCODES.Input.code, streamId: this.id, seq, payload: encodePayload('Input', projected.payload) }));
  }

  private dropHeldInput(): void {
    this.input.close();
  }

  private setState(state: StreamState): void {
    if (this.currentState === state) return;
    this.currentState = state;
    this.emit('state', { state });
  }

  /** Every send goes through the stream's SendGate: a gated opcode leaves only after the host's echo. */
  private send<N extends OpcodeName>(name: N, payload: PayloadInput<N>, streamId: number = this.id): void {
    const opcode = OPCODES[name].code;
    if (!this.gate.allows(opcode)) return;
    const projected = this.projections.project(name, payload, 0);
    if (!projected) return;
    this.ctx.send(encodeFrame({ opcode, streamId, payload: encodePayload(name, projected.payload) }));
  }
}
