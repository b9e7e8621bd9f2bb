import type { Duplex } from 'node:stream';
import { decode, Encoder } from '@msgpack/msgpack';

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
    /** Codec peer: the arguments this build's client peer takes beyond protocol 1's (PEER_CLIENT_ARGS). */
    readonly clientArgs?: readonly string[];
    /** Codec peer: the arguments this build's host peer takes beyond protocol 1's (PEER_HOST_ARGS). */
    readonly hostArgs?: readonly string[];
    /** Codec peer: the roles whose peers serve many sessions in one process when started with `--sessions` (PEER_SESSION_ROLES; absent: none). */
    readonly sessionRoles?: readonly string[];
    /** Codec peer: the transports this build's host and client peers speak (absent: WebSocket only). */
    readonly transports?: readonly string[];
    /** Client only: the Ack batch it runs with (`--ack-batch-bytes`, else its default). */
    readonly ackBatchBytes?: number;
    /** Host only: where its WebSocket server listens, and the token it wants. */
    readonly url?: string;
    /** Host only, where it speaks the byte stream: its tcp:// address (no token: the stream has no handshake). */
    readonly streamUrl?: string;
    readonly token?: string;
  };
}

export type ControlMessage = ControlRequest | ControlResponse | PeerHello;

const CONTROL_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const LENGTH_BYTES = 4;

/**
 * The channel frames its messages itself (a u32 little-endian length, then
 * the msgpack bytes: the same bytes as a wire frame's byte-stream prefix, so
 * older peers read it unchanged), never with the tree's deframer: a break in
 * the codec under test must show as a finding, not as a harness that cannot
 * talk to its peers.
 */
export function sendControl(channel: Duplex, message: ControlMessage): void {
  const body = controlEncoder.encodeSharedRef(message);
  const framed = Buffer.allocUnsafe(LENGTH_BYTES + body.length);
  framed.writeUInt32LE(body.length, 0);
  framed.set(body, LENGTH_BYTES);
  channel.write(framed);
}

/**
 * One encoder for every message: a fresh one starts at 2 KiB and grows by
 * zeroed copies, which for the frames a codec peer is sent cost the gate a
 * second of CPU per run, in the event loop its recording proxy shares.
 * Its bytes are copied out at once, so the shared buffer is never held.
 */
const controlEncoder = new Encoder();

/** Calls `onMessage` for each whole control message read from the channel. */
export function readControl(channel: Duplex, onMessage: (message: ControlMessage) => void): void {
  // Chunks are joined only once a whole message is there: a 60 MiB message in 64 KiB reads is copied once, not a thousand times.
  let chunks: Buffer[] = [];
  let buffered = 0;
  channel.on('data', (chunk: Buffer) => {
    try {
      chunks.push(chunk);
      buffered += chunk.length;
      while (buffered >= LENGTH_BYTES) {
        const head = chunks[0]!.length >= LENGTH_BYTES ? chunks[0]! : Buffer.concat(chunks);
        const length = head.readUInt32LE(0);
        if (length > CONTROL_MAX_MESSAGE_BYTES) throw new Error(`control message of ${length} bytes > ${CONTROL_MAX_MESSAGE_BYTES}`);
        if (buffered < LENGTH_BYTES + length) break;
        const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const rest = all.subarray(LENGTH_BYTES + length);
        chunks = rest.length ? [rest] : [];
        buffered = rest.length;
        // A plain Uint8Array view, so binary values decode as Uint8Array (not Buffer), as they always have.
        onMessage(decode(new Uint8Array(all.buffer, all.byteOffset + LENGTH_BYTES, length)) as ControlMessage);
      }
    } catch (error) {
      // A garbled channel is a broken peer, not a crash of the harness: close it, and callers see the close.
      channel.destroy(error as Error);
    }
  });
}
