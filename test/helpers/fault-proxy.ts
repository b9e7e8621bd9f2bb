import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * A SIMULATED network between a client and 127.0.0.1:`port`: a TCP proxy whose
 * open connections can be cut (as a network drop cuts them) or frozen (a black
 * hole: nothing more is forwarded, and they stay open). New connections are
 * forwarded as usual.
 */
export interface FaultProxy {
  /** ws:// URL of the proxy. */
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  cut(): void;
  freezeOpenConnections(): void;
  /**
   * A silent outage of `ms`: open connections are frozen (never closed), and
   * connections made before it ends are dropped at once, as by a network that
   * is down; after it, new connections are forwarded again.
   */
  outage(ms: number): void;
  close(): void;
}

export async function startFaultProxy(port: number): Promise<FaultProxy> {
  const open = new Set<{ frozen: boolean; sockets: readonly Socket[] }>();
  let connections = 0;
  let downUntil = 0;
  const server = createServer((downstream) => {
    connections++;
    if (Date.now() < downUntil) return void downstream.destroy();
    const upstream = connect(port, '127.0.0.1');
    const pair = { frozen: false, sockets: [downstream, upstream] };
    open.add(pair);
    downstream.on('data', (d) => pair.frozen || upstream.write(d));
    upstream.on('data', (d) => pair.frozen || downstream.write(d));
    const end = () => {
      open.delete(pair);
      downstream.destroy();
      upstream.destroy();
    };
    for (const s of pair.sockets) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const destroyAll = () => open.forEach((pair) => pair.sockets.forEach((s) => s.destroy()));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    cut: destroyAll,
    freezeOpenConnections: () => open.forEach((pair) => (pair.frozen = true)),
    outage: (ms) => {
      downUntil = Date.now() + ms;
      open.forEach((pair) => (pair.frozen = true));
    },
    close: () => {
      destroyAll();
      server.close();
    },
  };
}
