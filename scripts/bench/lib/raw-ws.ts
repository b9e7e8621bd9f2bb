import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';

/** How much a raw sender lets ws buffer before it yields, like a sender that respects backpressure. */
const RAW_SEND_BUFFER_BYTES = 4 * 1024 * 1024;

function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
}

function closed(ws: WebSocket): Promise<void> {
  return ws.readyState === WebSocket.CLOSED ? Promise.resolve() : new Promise((resolve) => ws.once('close', () => resolve()));
}

/**
 * The baseline: plain ws on loopback with the same settings termwire uses
 * (binary messages, no compression), and no protocol on top. The server
 * echoes what it receives; `burst` streams from the server to one long-lived
 * client.
 */
export class RawWs {
  private readonly peers = new Set<WebSocket>();
  private burstServerSide: WebSocket | undefined;
  private burstClient: WebSocket | undefined;

  private constructor(
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {
    wss.on('connection', (ws) => {
      this.peers.add(ws);
      ws.on('message', (data: Buffer, isBinary: boolean) => ws.send(data, { binary: isBinary }));
      ws.once('close', () => this.peers.delete(ws));
    });
  }

  static async start(): Promise<RawWs> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    return new RawWs(wss, `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  }

  /** Sends `totalBytes` as binary messages of `messageBytes` from server to client; returns seconds until the last byte arrived. */
  async burst(messageBytes: number, totalBytes: number): Promise<number> {
    const { sender, receiver } = await this.burstPair();
    const message = Buffer.alloc(messageBytes, 0x61);
    let received = 0;
    let sent = 0;
    const start = performance.now();
    await new Promise<void>((resolve) => {
      const onMessage = (data: Buffer) => {
        received += data.length;
        if (received < totalBytes) return;
        receiver.off('message', onMessage);
        resolve();
      };
      receiver.on('message', onMessage);
      const pump = () => {
        while (sent < totalBytes && sender.bufferedAmount < RAW_SEND_BUFFER_BYTES) {
          sender.send(message, { binary: true });
          sent += messageBytes;
        }
        if (sent < totalBytes) setImmediate(pump);
      };
      pump();
    });
    return (performance.now() - start) / 1000;
  }

  /** A fresh connection and one small message's round trip; returns ms from `new WebSocket` to the echo. */
  async connectRoundTrip(): Promise<number> {
    const start = performance.now();
    const ws = new WebSocket(this.url, { perMessageDeflate: false });
    await opened(ws);
    const echoed = new Promise<void>((resolve) => ws.once('message', () => resolve()));
    ws.send(Buffer.from([1]), { binary: true });
    await echoed;
    const ms = performance.now() - start;
    ws.close(1000);
    await closed(ws);
    while (this.peers.size > (this.burstClient ? 1 : 0)) await new Promise((resolve) => setImmediate(resolve));
    return ms;
  }

  async close(): Promise<void> {
    this.burstClient?.close(1000);
    for (const ws of this.peers) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private async burstPair(): Promise<{ sender: WebSocket; receiver: WebSocket }> {
    if (this.burstServerSide && this.burstClient) return { sender: this.burstServerSide, receiver: this.burstClient };
    const serverSide = new Promise<WebSocket>((resolve) => this.wss.once('connection', resolve));
    const client = new WebSocket(this.url, { perMessageDeflate: false });
    await opened(client);
    this.burstServerSide = await serverSide;
    this.burstClient = client;
    return { sender: this.burstServerSide, receiver: client };
  }
}
