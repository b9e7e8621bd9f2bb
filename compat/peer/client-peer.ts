import { ungatedSends } from '../../src/capabilities/send-gate.js';
import { TerminalClient } from '../../src/client/client.js';
import type { ClientStream } from '../../src/client/stream.js';
import type { PasteHandle } from '../../src/client/stream-input.js';
import { connectStream } from '../../src/transport/stream-connect.js';
import { connectWs } from '../../src/transport/ws-client.js';
import type { ClientPeerOp } from './peer-ops.js';
import { PEER_PROTOCOL_VERSION } from './protocol-version.js';
import type { PeerSession } from './serve-control.js';
import { buildVersion } from './version.js';

/**
 * The session environment every journey's client asks for: the host's own
 * default TERM, so a host that takes it (0.3 on) and one that ignores the
 * field (0.2 and before) run the same shell, and the field crosses the wire
 * in every pairing whose client sends it.
 */
const JOURNEY_ENVIRONMENT = { TERM: 'xterm-256color' } as const;

export interface ClientPeerOptions {
  readonly url: string;
  readonly token: string;
  readonly pingIntervalMs: number;
  readonly pongDeadlineMs: number;
  /** What the client advertises instead of its defaults (an explore journey with a capability switched off). */
  readonly capabilities?: Record<string, number>;
  /** Its Ack batch instead of the default (the run's flow, journey-flow.ts). */
  readonly ackBatchBytes?: number;
}

/** A reference client with one stream, reporting what it observed. */
export function openClientSession(options: ClientPeerOptions): PeerSession {
  const client = new TerminalClient({
    // tcp:// is the byte-stream transport (no handshake, no token, no liveness of its own).
    connect: () => (options.url.startsWith('tcp://') ? connectStream(options.url) : connectWs(options.url, { token: options.token, pingIntervalMs: options.pingIntervalMs, pongDeadlineMs: options.pongDeadlineMs })),
    // No jitter: the journey's frames must not depend on a random reconnect delay.
    random: () => 0.5,
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    ...(options.ackBatchBytes ? { ackBatchBytes: options.ackBatchBytes } : {}),
  });
  let stream: ClientStream | undefined;
  let lastPaste: PasteHandle | undefined;
  /** A second stream on the same connection, to another terminal (step twoStreams). */
  let also: ClientStream | undefined;
  const alsoSeen = { subscribedCount: 0, snapshots: 0, exits: 0, unsubscribed: false };
  const seen = {
    subscribedCount: 0,
    negotiated: null as Record<string, number> | null,
    snapshots: [] as Array<{ source?: string; requestId?: string }>,
    unsubscribed: false,
    errors: [] as string[],
    // Peer protocol 2: what a step about size, title, exit and input answers waits for.
    size: null as { cols: number; rows: number } | null,
    resizedCount: 0,
    titles: [] as string[],
    exits: 0,
    writeUnavailable: 0,
    notices: [] as string[],
  };
  const mustHaveStream = (): ClientStream => {
    if (!stream) throw new Error('no stream: call subscribe first');
    return stream;
  };
  client.start();
  const handlers: Record<ClientPeerOp, (args: any) => unknown> = {
    subscribe: ({ terminal, cols, rows }: { terminal: string; cols: number; rows: number }) => {
      stream = client.subscribe(terminal, { viewport: { cols, rows }, environment: JOURNEY_ENVIRONMENT });
      stream.on('subscribed', (e) => {
        seen.subscribedCount++;
        seen.negotiated = { ...e.negotiated } as Record<string, number>;
        seen.size = { cols: e.cols, rows: e.rows };
      });
      stream.on('resized', (e) => {
        seen.resizedCount++;
        seen.size = { cols: e.cols, rows: e.rows };
      });
      stream.on('title', (e) => seen.titles.push(e.title));
      stream.on('exit', () => seen.exits++);
      stream.on('writeUnavailable', () => seen.writeUnavailable++);
      stream.on('inputNotice', (n) => seen.notices.push(n.code));
      stream.on('snapshot', (e) => seen.snapshots.push({ ...(e.source ? { source: e.source } : {}), ...(e.requestId ? { requestId: e.requestId } : {}) }));
      stream.on('unsubscribed', () => (seen.unsubscribed = true));
      stream.on('errorFrame', (e) => seen.errors.push(`${e.code}: ${e.message}`));
      stream.on('problem', (p) => seen.errors.push(`client problem: ${JSON.stringify(p)}`));
    },
    write: ({ data }: { data: string }) => void mustHaveStream().write(data),
    paste: ({ text }: { text: string }) => {
      lastPaste = mustHaveStream().paste(text);
      return lastPaste?.chunks ?? 0;
    },
    // Withdraws what the host has not confirmed of the last paste; answers how many chunks that was.
    cancelPaste: () => lastPaste?.cancel() ?? 0,
    resize: ({ cols, rows }: { cols: number; rows: number }) => mustHaveStream().resize(cols, rows),
    claimViewport: ({ cols, rows }: { cols: number; rows: number }) => mustHaveStream().claimViewport(cols, rows),
    hide: () => mustHaveStream().hide(),
    reveal: () => void mustHaveStream().reveal(),
    unsubscribe: () => void mustHaveStream().unsubscribe(),
    subscribeAlso: ({ terminal, cols, rows }: { terminal: string; cols: number; rows: number }) => {
      also = client.subscribe(terminal, { viewport: { cols, rows }, environment: JOURNEY_ENVIRONMENT });
      alsoSeen.unsubscribed = false; // this stream's own unsubscribe, not an earlier one's
      also.on('subscribed', () => alsoSeen.subscribedCount++);
      also.on('snapshot', () => alsoSeen.snapshots++);
      also.on('exit', () => alsoSeen.exits++);
      also.on('unsubscribed', () => (alsoSeen.unsubscribed = true));
      also.on('errorFrame', (e) => seen.errors.push(`second stream: ${e.code}: ${e.message}`));
    },
    writeAlso: ({ data }: { data: string }) => void also?.write(data),
    unsubscribeAlso: () => void also?.unsubscribe(),
    state: async () => {
      await stream?.whenIdle();
      await also?.whenIdle();
      return {
        connected: client.connected,
        subscribedCount: seen.subscribedCount,
        negotiated: seen.negotiated,
        advertised: { ...client.options.capabilities },
        snapshots: seen.snapshots,
        screen: stream?.screenText() ?? '',
        disconnects: client.counters.disconnects,
        unsubscribed: seen.unsubscribed,
        errors: seen.errors,
        size: seen.size,
        resizedCount: seen.resizedCount,
        titles: seen.titles,
        exits: seen.exits,
        writeUnavailable: seen.writeUnavailable,
        notices: seen.notices,
        ungatedSends: ungatedSends(),
        ...(also ? { also: { ...alsoSeen, screen: alsoSeen.unsubscribed ? '' : also.screenText() } } : {}),
      };
    },
  };
  return {
    hello: { peerProtocol: PEER_PROTOCOL_VERSION, role: 'client', version: buildVersion(), advertised: { ...client.options.capabilities } as Record<string, number>, ackBatchBytes: client.options.ackBatchBytes },
    handlers,
    close: async () => client.close(),
  };
}
