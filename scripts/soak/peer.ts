import WebSocket from 'ws';
import { decodeFrame, encodeFrame } from '../../src/codec/header.js';
import { Op, OPCODES, type OpcodeName } from '../../src/codec/opcodes.js';
import { encodePayload, type PayloadInput } from '../../src/codec/payload.js';

const utf8 = new TextDecoder();

/** How a connection attempt or a connection ended, as the soak tallies it. */
export type Ending = { readonly kind: 'refused'; readonly status: number } | { readonly kind: 'closed'; readonly code: number; readonly reason: string } | { readonly kind: 'failed'; readonly message: string };

/**
 * A soak peer over a real WebSocket: raw frames, no client logic, and no
 * frames kept (Output text only while someone waits on it), so the soak's
 * own process stays small while it measures the server.
 */
export class SoakPeer {
  readonly errorCodes = new Map<string, number>();
  framesReceived = 0;
  private readonly byOpcode = new Map<number, number>();
  ending: Ending | undefined;
  private output = '';
  private watch: { text: string; resolve: () => void } | undefined;
  private readonly frameWaiters = new Set<(opcode: number, streamId: number) => boolean>();
  private readonly closed: Promise<Ending>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.framesReceived++;
      const decoded = decodeFrame(new Uint8Array(data));
      if (!decoded.ok) return;
      const { opcode, payload, streamId } = decoded.frame;
      this.byOpcode.set(opcode, (this.byOpcode.get(opcode) ?? 0) + 1);
      for (const waiter of this.frameWaiters) if (waiter(opcode, streamId)) this.frameWaiters.delete(waiter);
      if (opcode === Op.Error) {
        const code = utf8.decode(payload).split(':', 1)[0]!;
        this.errorCodes.set(code, (this.errorCodes.get(code) ?? 0) + 1);
      } else if (opcode === Op.Output && this.watch) {
        this.output = (this.output + utf8.decode(payload)).slice(-4096);
        if (this.output.includes(this.watch.text)) {
          const { resolve } = this.watch;
          this.watch = undefined;
          this.output = '';
          resolve();
        }
      }
    });
    ws.on('error', () => {});
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        this.ending = { kind: 'closed', code, reason: reason.toString() };
        resolve(this.ending);
      });
    });
  }

  /** Connects (from `localAddress` when given), or resolves with how the server refused. */
  static connect(url: string, token: string, localAddress?: string): Promise<SoakPeer | Ending> {
    return new Promise((resolve) => {
      const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false, handshakeTimeout: 5000, ...(localAddress ? { localAddress } : {}) });
      ws.once('open', () => resolve(new SoakPeer(ws)));
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        ws.on('error', () => {});
        ws.terminate();
        resolve({ kind: 'refused', status: res.statusCode ?? 0 });
      });
      ws.once('error', (err) => resolve({ kind: 'failed', message: err.message }));
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send<N extends OpcodeName>(name: N, streamId: number, payload: PayloadInput<N>, seq = 0): void {
    this.sendRaw(encodeFrame({ opcode: OPCODES[name].code, streamId, seq, payload: encodePayload(name, payload) }));
  }

  sendRaw(bytes: Uint8Array): void {
    if (this.isOpen) this.ws.send(bytes, { binary: true });
  }

  /** Resolves when `text` appears in the Output received from now on. */
  until(text: string): Promise<void> {
    this.output = '';
    return new Promise((resolve) => {
      this.watch = { text, resolve };
    });
  }

  /** How many frames of this opcode arrived. */
  framesOf(name: OpcodeName): number {
    return this.byOpcode.get(OPCODES[name].code) ?? 0;
  }

  /** Resolves true when a frame of `opcode` arrives on `streamId`, false after `giveUpMs`. */
  nextFrame(opcode: number, streamId: number, giveUpMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.frameWaiters.delete(waiter);
        resolve(false);
      }, giveUpMs);
      const waiter = (op: number, id: number) => {
        if (op !== opcode || id !== streamId) return false;
        clearTimeout(timer);
        resolve(true);
        return true;
      };
      this.frameWaiters.add(waiter);
    });
  }

  whenClosed(): Promise<Ending> {
    return this.closed;
  }

  close(): void {
    this.ws.terminate();
  }
}
