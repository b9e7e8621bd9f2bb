import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import { DEFAULT_HOST_CAPABILITIES } from '../../src/capabilities/defaults.js';
import { negotiate } from '../../src/capabilities/negotiate.js';
import type { CapabilitySet } from '../../src/capabilities/registry.js';
import { decodeFrame, encodeFrame, type Frame } from '../../src/codec/header.js';
import { OPCODES, type OpcodeName, opcodeName } from '../../src/codec/opcodes.js';
import { decodePayload, encodePayload, type PayloadInput } from '../../src/codec/payload.js';
import type { SubscribePayload } from '../../src/codec/schemas.js';
import type { MemoryLink } from '../helpers/memory-link.js';

/**
 * A SIMULATED host for client tests: it speaks raw frames with the codec over
 * in-process memory links, keeps one @xterm/headless screen per terminal and
 * serialises it for snapshots. It is deliberately small: no PTY, no flow
 * control; tests drive output and inspect what the client sent.
 */
export interface ReceivedFrame {
  readonly connection: number;
  readonly opcode: number;
  readonly name: string;
  readonly streamId: number;
  readonly seq: number;
  readonly payload: unknown;
}

interface FakeTerminal {
  readonly term: InstanceType<typeof xtermHeadless.Terminal>;
  readonly serializer: InstanceType<typeof serializeAddon.SerializeAddon>;
  seq: number;
  readonly input: string[];
}

interface FakeStream {
  readonly connection: number;
  readonly link: MemoryLink;
  readonly streamId: number;
  readonly terminal: string;
  readonly negotiated: CapabilitySet;
  paused: boolean;
}

const utf8 = new TextEncoder();

export class FakeHost {
  readonly received: ReceivedFrame[] = [];
  readonly links: MemoryLink[] = [];
  private readonly terminals = new Map<string, FakeTerminal>();
  private streams: FakeStream[] = [];
  private queue: Promise<void> = Promise.resolve();
  /** Capabilities this host supports; change it to simulate an older host. */
  hostCapabilities: CapabilitySet = { ...DEFAULT_HOST_CAPABILITIES };
  /** Snapshot chunk size, small in tests so assembly spans several chunks. */
  chunkChars = 48 * 1024;

  addTerminal(name: string, cols = 40, rows = 8): void {
    const term = new xtermHeadless.Terminal({ cols, rows, allowProposedApi: true });
    const serializer = new serializeAddon.SerializeAddon();
    term.loadAddon(serializer);
    this.terminals.set(name, { term, serializer, seq: 0, input: [] });
  }

  inputOf(name: string): string {
    return this.terminal(name).input.join('');
  }

  seqOf(name: string): number {
    return this.terminal(name).seq;
  }

  /** Lines of the host's own screen, trimmed right (what the client should reproduce). */
  screenText(name: string): string {
    const { term } = this.terminal(name);
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < term.rows; row++) lines.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true).trimEnd() ?? '');
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  accept(link: MemoryLink): void {
    const connection = this.links.length;
    this.links.push(link);
    link.attach({
      frame: (bytes) => this.serial(() => this.onFrame(connection, link, bytes)),
      close: () => {
        this.streams = this.streams.filter((s) => s.connection !== connection);
      },
    });
  }

  framesNamed(name: OpcodeName): ReceivedFrame[] {
    return this.received.filter((f) => f.name === name);
  }

  /** Writes output into the terminal and sends it to every unpaused stream, seq advanced by its UTF-8 bytes. */
  output(name: string, text: string, opts: { skipStream?: number } = {}): Promise<void> {
    return this.serial(async () => {
      const terminal = this.terminal(name);
      await write(terminal, text);
      terminal.seq += utf8.encode(text).length;
      for (const s of this.streams.filter((x) => x.terminal === name && !x.paused && x.streamId !== opts.skipStream)) {
        this.send(s.link, 'Output', s.streamId, text, terminal.seq);
      }
    });
  }

  /** Sends any raw bytes on a connection (an unknown opcode, garbage). */
  sendRaw(connection: number, bytes: Uint8Array): Promise<void> {
    return this.serial(() => this.links[connection]!.send(bytes));
  }

  streamsOf(connection: number): readonly FakeStream[] {
    return this.streams.filter((s) => s.connection === connection);
  }

  /** Resolves once every action queued so far has run. */
  idle(): Promise<void> {
    return this.serial(() => undefined);
  }

  private serial(action: () => void | Promise<void>): Promise<void> {
    this.queue = this.queue.then(action);
    return this.queue;
  }

  private terminal(name: string): FakeTerminal {
    const t = this.terminals.get(name);
    if (!t) throw new Error(`fake host has no terminal '${name}'`);
    return t;
  }

  private async onFrame(connection: number, link: MemoryLink, bytes: Uint8Array): Promise<void> {
    const decoded = decodeFrame(bytes);
    if (!decoded.ok) throw decoded.error;
    const frame = decoded.frame;
    const payload = decodePayload(frame);
    if (!payload.ok) throw payload.error;
    this.received.push({ connection, opcode: frame.opcode, name: opcodeName(frame.opcode), streamId: frame.streamId, seq: frame.seq, payload: payload.value });
    await this.handle(connection, link, frame, payload.value);
  }

  private async handle(connection: number, link: MemoryLink, frame: Frame, payload: unknown): Promise<void> {
    const stream = this.streams.find((s) => s.connection === connection && s.streamId === frame.streamId);
    switch (frame.opcode) {
      case OPCODES.Subscribe.code: {
        const sub = payload as SubscribePayload;
        const terminal = this.terminal(sub.terminal);
        const negotiated = negotiate(sub.capabilities, this.hostCapabilities);
        const s: FakeStream = { connection, link, streamId: sub.streamId, terminal: sub.terminal, negotiated, paused: false };
        this.streams.push(s);
        const event = { type: 'subscribed', streamId: sub.streamId, terminal: sub.terminal, cols: terminal.term.cols, rows: terminal.term.rows, seq: terminal.seq, truncated: false, ...(sub.capabilities ? { capabilities: negotiated } : {}) };
        this.send(link, 'Metadata', sub.streamId, event, terminal.seq);
        return this.snapshot(s, 'subscribe');
      }
      case OPCODES.SnapshotRequest.code:
        if (stream) await this.snapshot(stream, 'request', (payload as { requestId?: string }).requestId);
        return;
      case OPCODES.SetOutputPaused.code:
        if (!stream) return;
        stream.paused = (payload as { paused: boolean }).paused;
        if (!stream.paused) await this.snapshot(stream, 'recovery');
        return;
      case OPCODES.Input.code:
        if (stream) this.terminal(stream.terminal).input.push(payload as string);
        return;
      case OPCODES.Unsubscribe.code:
        if (!stream) return;
        this.streams = this.streams.filter((s) => s !== stream);
        this.send(link, 'Metadata', stream.streamId, { type: 'unsubscribed', streamId: stream.streamId });
        return;
      default:
        return; // Ack, Resize: recorded only
    }
  }

  private async snapshot(s: FakeStream, source: string, requestId?: string): Promise<void> {
    const terminal = this.terminal(s.terminal);
    await write(terminal, '');
    const text = terminal.serializer.serialize();
    const meta = { kind: 'scrollback', cols: terminal.term.cols, rows: terminal.term.rows, seq: terminal.seq, source, truncated: false, ...(requestId ? { requestId } : {}) };
    this.send(s.link, 'SnapshotStart', s.streamId, meta, terminal.seq);
    for (let at = 0; at < text.length; at += this.chunkChars) this.send(s.link, 'SnapshotChunk', s.streamId, text.slice(at, at + this.chunkChars), terminal.seq);
    this.send(s.link, 'SnapshotEnd', s.streamId, undefined, terminal.seq);
  }

  private send<N extends OpcodeName>(link: MemoryLink, name: N, streamId: number, payload: PayloadInput<N>, seq = 0): void {
    link.send(encodeFrame({ opcode: OPCODES[name].code, streamId, seq, payload: encodePayload(name, payload) }));
  }
}

function write(terminal: FakeTerminal, text: string): Promise<void> {
  return new Promise((resolve) => terminal.term.write(text, resolve));
}
