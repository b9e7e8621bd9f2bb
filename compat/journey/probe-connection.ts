import { WebSocket } from 'ws';
import type { ProbeEnd } from '../recording.js';
import type { Upstream } from './proxy-admission.js';
import { copyBytes } from './raw-data.js';

/** What the probe hands its owner: frames to record, and how the connection ended. */
export interface ProbeRecorder {
  readonly step: () => string;
  readonly record: (direction: 'clientToHost' | 'hostToClient', bytes: Uint8Array, fault?: 'injected') => void;
  readonly ended: (end: ProbeEnd) => void;
}

/**
 * The proxy's own connection to the host: a peer no client library is, which
 * sends what no client sends (a text message, a flood of refused frames), so a
 * journey can reach the host's refusals and closes that no client provokes.
 * Whatever either build's clients are, the probe sends the same bytes, so what
 * differs between two hosts' answers is the hosts'.
 */
export class ProbeConnection {
  private flood: { step: string; answered: number } | undefined;
  private finished = false;

  private constructor(
    private readonly ws: WebSocket,
    readonly connection: number,
    private readonly recorder: ProbeRecorder,
  ) {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      if (this.flood) return void this.flood.answered++;
      this.recorder.record('hostToClient', copyBytes(data));
    });
    ws.on('close', (code, reason) => this.end({ outcome: 'closed', code, reason: reason.toString() }));
    // The pong of a ping sent after the whole flood: the host read every flooded frame and kept the connection.
    ws.on('pong', () => this.end({ outcome: 'stayedOpen' }));
    ws.on('error', () => undefined); // a refused or reset connection ends in 'close'
  }

  static open(upstream: Upstream, connection: number, recorder: ProbeRecorder): Promise<ProbeConnection> {
    const ws = new WebSocket(upstream.url, { headers: { authorization: `Bearer ${upstream.token}` } });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new ProbeConnection(ws, connection, recorder)));
      ws.once('error', (error) => reject(new Error(`the probe connection to the host failed: ${error.message}`)));
    });
  }

  /**
   * An upgrade with a token the host never issued: refused with the HTTP
   * status the host answered (none where it dropped the socket), or admitted,
   * in which case the connection is ended at once.
   */
  static tryWrongToken(upstream: Upstream): Promise<Pick<ProbeEnd, 'outcome' | 'status'>> {
    const ws = new WebSocket(upstream.url, { headers: { authorization: `Bearer not-${upstream.token}` } });
    return new Promise((resolve) => {
      ws.once('unexpected-response', (_request, response) => {
        response.resume();
        ws.terminate();
        resolve({ outcome: 'refused', ...(response.statusCode ? { status: response.statusCode } : {}) });
      });
      ws.once('open', () => {
        ws.terminate();
        resolve({ outcome: 'admitted' });
      });
      ws.on('error', () => resolve({ outcome: 'refused' })); // after a status, a no-op: the first answer stands
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** A WebSocket text message: not a frame, so no recording of it; the host's answer is recorded. */
  sendText(text: string): void {
    this.ws.send(text, { binary: false });
  }

  /** One frame, recorded as injected (the harness's, never a client's). */
  send(bytes: Uint8Array): void {
    this.recorder.record('clientToHost', bytes, 'injected');
    this.ws.send(bytes, { binary: true });
  }

  /**
   * Sends every frame at once, then a ping. The host either closes the
   * connection while it reads them, or pongs once it has read them all (a
   * pong follows the frames before it); either way the flood has ended.
   */
  sendFlood(frames: readonly Uint8Array[]): void {
    this.flood = { step: this.recorder.step(), answered: 0 };
    for (const bytes of frames) this.ws.send(bytes, { binary: true });
    this.ws.ping();
  }

  close(): void {
    this.finished = true;
    this.ws.terminate();
  }

  /** The first end of the connection that the journey did not ask for: a close by the host, or the pong that ends a flood. */
  private end(how: Pick<ProbeEnd, 'outcome' | 'code' | 'reason'>): void {
    const flood = this.flood;
    if (this.finished || (how.outcome === 'stayedOpen' && !flood)) return;
    this.finished = true;
    this.recorder.ended({ step: flood?.step ?? this.recorder.step(), connection: this.connection, ...how, answeredFrames: flood?.answered ?? 0 });
    if (how.outcome === 'stayedOpen') this.ws.terminate();
  }
}

