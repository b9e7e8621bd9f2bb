import WebSocket from 'ws';
import { decodeFrame, encodeFrame } from '../../src/codec/header.js';
import { Op, OPCODES, type OpcodeName } from '../../src/codec/opcodes.js';
import { encodePayload, type PayloadInput } from '../../src/codec/payload.js';

const utf8 = new TextDecoder();
const KEPT_ERRORS = 32;

/**
 * A hostile or broken peer over a real WebSocket. Unlike RawPeer it keeps no
 * frames (only counts, the first Error texts and the close), so its own
 * memory stays flat while it floods, and it can stop reading its socket.
 */
export class Abuser {
  framesReceived = 0;
  bytesReceived = 0;
  errorCount = 0;
  readonly errors: string[] = [];
  /** The metadata of the last SnapshotStart received. */
  lastSnapshotStart: Record<string, unknown> | undefined;
  /** Streams that received Output. */
  readonly outputStreams = new Set<number>();
  closeInfo: { code: number; reason: string } | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.framesReceived++;
      this.bytesReceived += data.length;
      const decoded = decodeFrame(new Uint8Array(data));
      if (decoded.ok && decoded.frame.opcode === Op.Output) this.outputStreams.add(decoded.frame.streamId);
      if (decoded.ok && decoded.frame.opcode === Op.SnapshotStart) this.lastSnapshotStart = JSON.parse(utf8.decode(decoded.frame.payload)) as Record<string, unknown>;
      if (decoded.ok && decoded.frame.opcode === Op.Error) {
        this.errorCount++;
        if (this.errors.length < KEPT_ERRORS) this.errors.push(utf8.decode(decoded.frame.payload));
      }
    });
    ws.on('close', (code, reason) => {
      this.closeInfo = { code, reason: reason.toString() };
    });
    ws.on('error', () => {}); // a reset after the host dropped us is expected
  }

  static connect(url: string, token: string): Promise<Abuser> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, perMessageDeflate: false });
      ws.once('open', () => resolve(new Abuser(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  send<N extends OpcodeName>(name: N, streamId: number, payload: PayloadInput<N>, seq = 0): void {
    this.sendRaw(encodeFrame({ opcode: OPCODES[name].code, streamId, seq, payload: encodePayload(name, payload) }));
  }

  sendRaw(bytes: Uint8Array): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(bytes, { binary: true });
  }

  /** Stops reading the socket: the host's sends pile up on its side. Pings are not read either. */
  stopReading(): void {
    this.ws.pause();
  }

  resumeReading(): void {
    this.ws.resume();
  }

  /** Sends pongs the host never asked for, as a peer that stopped reading but fakes liveness would. */
  fakePongs(everyMs: number): () => void {
    const timer = setInterval(() => {
      if (this.ws.readyState === WebSocket.OPEN) this.ws.pong();
    }, everyMs);
    return () => clearInterval(timer);
  }

  errorsWithCode(code: string): string[] {
    return this.errors.filter((e) => e.startsWith(`${code}:`));
  }

  terminate(): void {
    this.ws.terminate();
  }
}
