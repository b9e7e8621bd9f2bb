import { connect } from 'node:net';
import { type StreamLink, type StreamLinkOptions, streamLink } from './stream.js';

/** `tcp://HOST:PORT`, the byte-stream transport's address. */
export function parseTcpUrl(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = Number(parsed.port);
  if (parsed.protocol !== 'tcp:' || !parsed.hostname || !Number.isInteger(port) || port < 1) throw new Error(`not a tcp://HOST:PORT address: '${url}'`);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port };
}

/**
 * Opens a byte-stream link over TCP: frames with a u32-LE length prefix, no
 * handshake, no liveness of its own (a dead peer shows when the socket errors
 * or closes). Resolves once connected; rejects on a refused or failed connect.
 */
export function connectStream(url: string, options: Readonly<Partial<StreamLinkOptions>> = {}): Promise<StreamLink> {
  const { host, port } = parseTcpUrl(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(streamLink(socket, options));
    });
  });
}
