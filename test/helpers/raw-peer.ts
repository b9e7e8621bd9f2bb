import WebSocket from 'ws';
import { decodeFrame, encodeFrame } from '../../src/codec/header.js';
import { Op, type OpcodeName, OPCODES } from '../../src/codec/opcodes.js';
import { encodePayload, type PayloadInput } from '../../src/codec/payload.js';
import { waitFor } from './wait-for.js';

export interface ReceivedFrame {
  readonly opcode: number;
  readonly streamId: number;
  readonly seq: number;
  readonly payload: Uint8Array;
  /** The raw message, byte for byte. */
  readonly bytes: Uint8Array;
}

export interface AssembledSnapshot {
  readonly start: Record<string, unknown>;
  readonly text: string;
  readonly seq: number;
  readonly chunkSizes: number[];
}

const utf8 = new TextDecoder();

/**
 * A real WebSocket peer that speaks raw frames through the codec: no client
 * logic, so host tests see exactly what the host sends. Not a simulation.
 */
export class RawPeer {
  readonly frames: ReceivedFrame[] = [];
  closeInfo: { code: number; reason: string } | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) throw new Error('host sent a text message');
      const bytes = new Uint8Array(data);
      const decoded = decodeFrame(bytes);
      if (!decoded.ok) throw new Error(`host sent an undecodable frame: ${decoded.error.message}`);
      this.frames.push({ ...decoded.frame, bytes });
    });
    ws.on('close', (code, reason) => {
      this.closeInfo = { code, reason: reason.toString() };
    });
  }

  static connect(url: string, token: string, options: WebSocket.ClientOptions = {}): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false, ...options });
      ws.once('open', () => resolve(new RawPeer(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  /** Sends an opcode with a payload encoded (and validated) by the codec. */
  send<N extends OpcodeName>(name: N, streamId: number, payload: PayloadInput<N>, seq = 0): void {
    this.sendRaw(encodeFrame({ opcode: OPCODES[name].code, streamId, seq, payload: encodePayload(name, payload) }));
  }

  sendRaw(bytes: Uint8Array): void {
    this.ws.send(bytes, { binary: true });
  }

  subscribe(streamId: number, terminal: string, extra: Omit<PayloadInput<'Subscribe'>, 'streamId' | 'terminal'> = {}): void {
    this.send('Subscribe', 0, { streamId, terminal, ...extra });
  }

  on(streamId: number, opcode?: number): ReceivedFrame[] {
    return this.frames.filter((f) => f.streamId === streamId && (opcode === undefined || f.opcode === opcode));
  }

  json(frame: ReceivedFrame): Record<string, unknown> {
    return JSON.parse(utf8.decode(frame.payload)) as Record<string, unknown>;
  }

  text(frame: ReceivedFrame): string {
    return utf8.decode(frame.payload);
  }

  /** Every Error frame's text on a stream ("CODE: message"). */
  errors(streamId: number): string[] {
    return this.on(streamId, Op.Error).map((f) => this.text(f));
  }

  /**
   * A check that `needle` appeared in a stream's output after this call. Each
   * frame is decoded once, whatever the number of checks: decoding everything
   * since the mark on every poll is quadratic, and a 64 MiB flood then starved
   * the host sharing this event loop (a false timeout under load).
   */
  outputWatch(streamId: number, needle: string): () => boolean {
    let next = this.frames.length;
    let tail = '';
    let found = false;
    return () => {
      for (; !found && next < this.frames.length; next++) {
        const frame = this.frames[next]!;
        if (frame.streamId !== streamId || frame.opcode !== Op.Output) continue;
        const text = tail + this.text(frame);
        found = text.includes(needle);
        tail = needle.length > 1 ? text.slice(-(needle.length - 1)) : '';
      }
      return found;
    };
  }

  outputText(streamId: number): string {
    return this.on(streamId, Op.Output).map((f) => this.text(f)).join('');
  }

  outputBytes(streamId: number): number {
    return this.on(streamId, Op.Output).reduce((sum, f) => sum + f.payload.length, 0);
  }

  /** The complete snapshots received on a stream, in order. */
  snapshots(streamId: number): AssembledSnapshot[] {
    const out: AssembledSnapshot[] = [];
    let current: { start: Record<string, unknown>; parts: string[]; sizes: number[] } | undefined;
    for (const f of this.on(streamId)) {
      if (f.opcode === Op.SnapshotStart) current = { start: this.json(f), parts: [], sizes: [] };
      else if (f.opcode === Op.SnapshotChunk && current) {
        current.parts.push(this.text(f));
        current.sizes.push(f.payload.length);
      } else if (f.opcode === Op.SnapshotEnd && current) {
        out.push({ start: current.start, text: current.parts.join(''), seq: f.seq, chunkSizes: current.sizes });
        current = undefined;
      }
    }
    return out;
  }

  async waitFor(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
    await waitFor(predicate, { what, timeoutMs });
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
