import { networkSource } from '../../src/transport/network-source.js';
import { HostRuntime, type HostRuntimeOptions } from '../../src/host/runtime.js';
import { startWsServer, type WsServer, type WsServerOptions } from '../../src/transport/ws-server.js';
import { RawPeer } from '../helpers/raw-peer.js';

export const TEST_TOKEN = 'test-token-0123456789';

export interface TestHost {
  readonly host: HostRuntime;
  readonly server: WsServer;
  connect(): Promise<RawPeer>;
  close(): Promise<void>;
}

/** A real host runtime behind a real WebSocket server on loopback. */
/** `bySource`: connections count against their network (as `termwire serve` does), not each on its own. */
export async function startTestHost(options: HostRuntimeOptions, server: Partial<WsServerOptions> = {}, bySource = false): Promise<TestHost> {
  const host = new HostRuntime(options);
  const ws = await startWsServer({ token: TEST_TOKEN, ...server, onLink: (link, peer) => host.accept(link, bySource ? { source: networkSource(peer.remoteAddress) } : {}) });
  const peers: RawPeer[] = [];
  return {
    host,
    server: ws,
    async connect() {
      const peer = await RawPeer.connect(ws.url, TEST_TOKEN);
      peers.push(peer);
      return peer;
    },
    async close() {
      await Promise.all(peers.map((p) => p.close()));
      host.close();
      await ws.close();
    },
  };
}

/** Subscribes `streamId` to terminal 'a' with these capabilities, and waits for its initial snapshot. */
export async function subscribe(peer: RawPeer, streamId: number, capabilities: Record<string, number>): Promise<void> {
  peer.subscribe(streamId, 'a', { capabilities });
  await peer.waitFor(() => peer.snapshots(streamId).length === 1, `initial snapshot on ${streamId}`);
}
