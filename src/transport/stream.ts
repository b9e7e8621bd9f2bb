import type { Readable, Writable } from 'node:stream';
import { DEFAULT_DEFRAMER_OPTIONS, Deframer, type DeframerOptions, lengthPrefixed } from '../codec/deframer.js';
import type { WireError } from '../codec/errors.js';
import type { FrameLink, LinkHandlers } from './link.js';

export interface StreamLinkOptions {
  /** Largest frame (header + payload) a received length prefix may declare, in bytes. Default 16 MiB. */
  readonly maxFrameBytes: number;
  /** Called for each received frame refused by its declared length; the link stays up. Default: none. */
  readonly onError: ((error: WireError) => void) | undefined;
}

export const DEFAULT_STREAM_LINK_OPTIONS: StreamLinkOptions = Object.freeze({
  maxFrameBytes: DEFAULT_DEFRAMER_OPTIONS.maxFrameBytes,
  onError: undefined,
});

/**
 * How a stream link deframes: the codec's default (spanning frames assembled in
 * one reused buffer, so frames handed to the handlers are valid during the call
 * only), and beyond that buffer Buffer.allocUnsafe skips a zero fill that every
 * copied byte overwrites. Exported so the codec bench measures this configuration.
 */
export function streamDeframerOptions(maxFrameBytes: number): DeframerOptions {
  return { ...DEFAULT_DEFRAMER_OPTIONS, maxFrameBytes, allocate: (n) => Buffer.allocUnsafe(n) };
}

/** A net.Socket (or any duplex), or a separate readable and writable such as stdin and stdout. */
export type ByteStreamIo = (Readable & Writable) | { readonly readable: Readable; readonly writable: Writable };

export interface StreamLink extends FrameLink {
  /** Received frames refused for a declared length above maxFrameBytes, skipped unread. */
  readonly refusedFrames: number;
}

function splitIo(io: ByteStreamIo): { readable: Readable; writable: Writable; duplex: boolean } {
  // A net.Socket also has a boolean `readable`; a pair carries stream objects.
  if (typeof io.readable === 'object' && 'writable' in io && typeof io.writable === 'object') {
    return { readable: io.readable, writable: io.writable, duplex: false };
  }
  const stream = io as Readable & Writable;
  return { readable: stream, writable: stream, duplex: true };
}

/**
 * A FrameLink over a byte stream: each frame is written as a u32-LE length and
 * the frame, and read back through the Deframer.
 *
 * A received length above maxFrameBytes is refused when its 4 bytes arrive:
 * the frame is skipped unbuffered, counted in `refusedFrames` and reported to
 * `onError`, and the link stays up. Skipping keeps the stream in step, so one
 * oversized frame (a peer with a larger limit, say) costs that frame only,
 * not the connection; the caller can still close on onError if it prefers.
 */
export function streamLink(io: ByteStreamIo, options: Readonly<Partial<StreamLinkOptions>> = {}): StreamLink {
  const { maxFrameBytes, onError } = { ...DEFAULT_STREAM_LINK_OPTIONS, ...options };
  const { readable, writable, duplex } = splitIo(io);
  const deframer = new Deframer(streamDeframerOptions(maxFrameBytes));
  let handlers: LinkHandlers | undefined;
  const heldFrames: Uint8Array[] = [];
  let closeReason: string | undefined;
  let closeDelivered = false;
  let refusedFrames = 0;

  const deliverClose = () => {
    if (closeReason === undefined || closeDelivered || !handlers) return;
    closeDelivered = true;
    handlers.close(closeReason);
  };

  const onData = (chunk: Buffer | string) => {
    if (closeReason !== undefined) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (const item of deframer.push(bytes)) {
      if (!item.ok) {
        refusedFrames++;
        onError?.(item.error);
      } else if (handlers) {
        handlers.frame(item.bytes);
      } else {
        // Held past this push, so copied out of the deframer's reused buffer.
        heldFrames.push(new Uint8Array(item.bytes));
      }
      if (closeReason !== undefined) return; // a handler closed the link
    }
  };
  const onEnd = () => shutDown('the peer ended the stream');
  const onClose = () => shutDown('the stream closed');
  const onStreamError = (error: Error) => shutDown(`stream error: ${error.message}`);

  function shutDown(reason: string): void {
    if (closeReason !== undefined) return;
    closeReason = reason;
    readable.off('data', onData);
    readable.off('end', onEnd);
    readable.off('close', onClose);
    writable.off('close', onClose);
    // Keep an error listener so a late socket error is not an uncaught exception.
    if (!writable.writableEnded) writable.end();
    if (duplex) {
      if (writable.writableFinished) writable.destroy();
      else writable.once('finish', () => writable.destroy());
    } else {
      readable.pause();
    }
    deliverClose();
  }

  readable.on('data', onData);
  readable.on('end', onEnd);
  readable.on('close', onClose);
  readable.on('error', onStreamError);
  if (!duplex) {
    writable.on('close', onClose);
    writable.on('error', onStreamError);
  }

  return {
    send(frame: Uint8Array): void {
      if (closeReason !== undefined) return;
      writable.write(lengthPrefixed(frame));
    },
    close(reason = 'closed locally'): void {
      shutDown(reason);
    },
    get bufferedBytes(): number {
      return closeReason === undefined ? writable.writableLength : 0;
    },
    get isOpen(): boolean {
      return closeReason === undefined;
    },
    get refusedFrames(): number {
      return refusedFrames;
    },
    attach(next: LinkHandlers): void {
      handlers = next;
      for (const frame of heldFrames.splice(0)) {
        if (closeDelivered) break;
        next.frame(frame);
      }
      deliverClose();
    },
  };
}
