import type { WebSocket } from 'ws';

/** One copy of a message (ws may hand out a view of a larger read), as a plain Uint8Array over it: a burst's megabytes are not copied twice. */
export function copyBytes(data: WebSocket.RawData): Uint8Array {
  const copy = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
  return new Uint8Array(copy.buffer, copy.byteOffset, copy.byteLength);
}
