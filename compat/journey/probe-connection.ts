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

/** A host that accepts the TCP connection and never answers the upgrade is given this long; the probe then counts it refused without an answer. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * The proxy's own connection to the host: a peer no client library is, which
 * sends what no client sends (a text message, a flood of refused frames), so a
 * journey can reach the host's refusals and closes that no client provokes.
 * Whatever either build's clients are, the probe sends the same bytes, so what
 * differs between two hosts' answers is the hosts'.
 */
export class ProbeConnection {
  private flood: { step: string; size: number; answered: number; answers: (bytes: Uint8Array) => boolean } | undefined;
  private finished = false;

  private constructor(
    private readonly ws: WebSocket,
    readonly connection: number,
    private readonly recorder: ProbeRecorder,
  ) {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      if (!this.flood) return this.recorder.record('hostToClient', copyBytes(data));
      // Every flooded frame answered: the host has no limit that closes (v0.1.0), and keeps the connection.
      if (!this.flood.answers(copyBytes(data))) return;
      if (++this.flood.answered === this.flood.size) this.end({ outcome: 'stayedOpen' });
    });
    ws.on('close', (code, reason) => this.end({ outcome: 'closed', code, reason: reason.toString() }));
    ws.on('error', () => undefined); // a refused or reset connection ends in 'close'
  }

  static open(upstream: Upstream, connection: number, recorder: ProbeRecorder): Promise<ProbeConnection> {
    const ws = new WebSocket(upstream.url, { headers: { authorization: `Bearer ${upstream.token}` }, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new ProbeConnection(ws, connection, recorder)));
      ws.once('error', (error) => reject(new Error(`the probe connection to the host failed: ${error.message}`)));
    });
  }

  /**
   * An upgrade with a token the host never issued: refused with the HTTP
   * status the host answered (none where it dropped the socket or never
   * answered), or admitted, in which case the connection is ended at once.
   */
  static tryWrongToken(upstream: Upstream): Promise<Pick<ProbeEnd, 'outcome' | 'status'>> {
    const ws = new WebSocket(upstream.url, { headers: { authorization: `Bearer not-${upstream.token}` }, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
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

  /** The host ended the connection, or answered a whole flood. */
  get ended(): boolean {
    return this.finished;
  }

  /** Flooded frames the host answered so far: the flood's progress, never compared (how many precede a close is timing). */
  get floodAnswered(): number {
    return this.flood?.answered ?? 0;
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
   * Sends every frame at once, each of which earns one answer (`answers`
   * tells an answer from the other frames the host sends; by default each
   * frame is one). The flood ends when the host closes the connection, or
   * when it has answered every frame; a host that neither closes nor answers
   * leaves the step to stall. The flood's frames are counted, never recorded.
   */
  sendFlood(frames: readonly Uint8Array[], answers: (bytes: Uint8Array) => boolean = () => true): void {
    this.flood = { step: this.recorder.step(), size: frames.length, answered: 0, answers };
    for (const bytes of frames) this.ws.send(bytes, { binary: true });
  }

  close(): void {
    this.finished = true;
    this.ws.terminate();
  }

  /** The first end of the connection that the journey did not ask for: a close by the host, or a flood answered whole. */
  private end(how: Pick<ProbeEnd, 'outcome' | 'code' | 'reason'>): void {
    if (this.finished) return;
    this.finished = true;
    const flood = this.flood;
    this.recorder.ended({ step: flood?.step ?? this.recorder.step(), connection: this.connection, ...how, answeredFrames: flood?.answered ?? 0 });
    if (how.outcome === 'stayedOpen') this.ws.terminate();
  }
}
