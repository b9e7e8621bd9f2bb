import type { Duplex } from 'node:stream';
import { decode, encode } from '@msgpack/msgpack';
import { Deframer, lengthPrefixed } from '../../src/codec/deframer.js';

/**
 * The harness and each peer process talk over fd 3 (a socket pair made by
 * spawn), never stdout, so a stray console.log in a peer cannot corrupt it.
 * Messages are msgpack values, each length-prefixed like wire frames on a byte
 * stream, so one deframer (with its size limit) serves both.
 */
export interface ControlRequest {
  readonly id: number;
  readonly op: string;
  readonly args?: unknown;
}

export type ControlResponse =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string };

export interface PeerHello {
  readonly hello: {
    readonly peerProtocol: number;
    readonly role: 'host' | 'client' | 'codec';
    readonly version: string;
    readonly advertised: Record<string, number>;
    /** Peer protocol ≥ 2: the control ops this peer answers (serveControl fills it in). */
    readonly ops?: readonly string[];
    /** Codec peer, protocol ≥ 2: the ops this build's host and client peers answer, known before either starts. */
    readonly peerOps?: { readonly host: readonly string[]; readonly client: readonly string[] };
    /** Host only: where its WebSocket server listens, and the token it wants. */
    readonly url?: string;
    readonly token?: string;
  };
}

export type ControlMessage = ControlRequest | ControlResponse | PeerHello;

const CONTROL_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export function sendControl(channel: Duplex, message: ControlMessage): void {
  channel.write(lengthPrefixed(encode(message)));
}

/** Calls `onMessage` for each whole control message read from the channel. */
export function readControl(channel: Duplex, onMessage: (message: ControlMessage) => void): void {
  const deframer = new Deframer({ maxFrameBytes: CONTROL_MAX_MESSAGE_BYTES });
  channel.on('data', (chunk: Buffer) => {
    try {
      for (const item of deframer.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))) {
        if (!item.ok) throw item.error;
        onMessage(decode(item.bytes) as ControlMessage);
      }
    } catch (error) {
      // A garbled channel is a broken peer, not a crash of the harness: close it, and callers see the close.
      channel.destroy(error as Error);
    }
  });
}
