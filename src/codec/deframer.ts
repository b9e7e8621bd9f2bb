import { WireError } from './errors.js';

export interface DeframerOptions {
  /** Largest frame (header + payload) a length prefix may declare, in bytes. Default 16 MiB. */
  readonly maxFrameBytes: number;
  /**
   * Allocates the buffer a frame that spans chunks is assembled in; every byte
   * is written before the frame is returned, so it need not be zeroed. Node
   * callers pass `Buffer.allocUnsafe`, which skips the zero fill. With the
   * default reusedBufferBytes it runs only to grow the reused buffer and for
   * frames larger than that. Default `new Uint8Array(n)`.
   */
  readonly allocate: (byteLength: number) => Uint8Array;
  /**
   * Spanning frames up to this many bytes are assembled in one buffer the
   * deframer keeps and reuses, so such a frame is valid only until the next
   * push(): a caller that keeps one copies it. Spares a fresh allocation per
   * spanning frame, which costs several times the copy itself (zero fill, and
   * memory new to the process; see scripts/bench/codec.ts). Larger frames get
   * a buffer of their own. 0 gives every frame a buffer of its own, so every
   * frame stays valid, at that cost. Default 1 MiB: covers the reference
   * host's frames (64 KiB output, 48 KiB snapshot chunks) and bounds what a
   * deframer keeps.
   */
  readonly reusedBufferBytes: number;
}

export const DEFAULT_DEFRAMER_OPTIONS: DeframerOptions = Object.freeze({
  maxFrameBytes: 16 * 1024 * 1024,
  allocate: (byteLength: number) => new Uint8Array(byteLength),
  reusedBufferBytes: 1024 * 1024,
});

export const LENGTH_PREFIX_BYTES = 4;

/** One item out of the deframer: a whole frame's bytes, or a refused length. */
export type DeframedItem = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly error: WireError };

/**
 * Splits a byte stream of u32-LE-length-prefixed frames back into frames.
 * A resumable state machine over a queue of chunks: a short read is "need more
 * bytes", never an error. A length above maxFrameBytes is refused as soon as it
 * is read and that many bytes are skipped unbuffered, so the stream stays in
 * step and memory stays bounded. A frame inside one chunk is returned as a view
 * of it; a frame that spans chunks is copied once, when its last byte arrives.
 *
 * The contract: a frame that push() returns is valid until the next push()
 * only. By default spanning frames are assembled in one reused buffer (see
 * reusedBufferBytes), which the next spanning frame overwrites, so a caller
 * that keeps a frame past that (queues it, hands it to later code) copies it,
 * e.g. `new Uint8Array(item.bytes)`. Frames within one chunk are views of it,
 * so they last as long as the caller leaves that chunk unchanged.
 */
export class Deframer {
  private readonly options: DeframerOptions;
  private readonly chunks: Uint8Array[] = [];
  private chunkOffset = 0; // read position inside chunks[0]
  private buffered = 0; // unread bytes across chunks
  private pendingLength = -1; // declared length of the frame being read, or -1
  private skipRemaining = 0; // bytes of a refused frame still to discard
  private reused: Uint8Array = new Uint8Array(0); // where spanning frames up to reusedBufferBytes are assembled

  constructor(options: Readonly<Partial<DeframerOptions>> = {}) {
    this.options = { ...DEFAULT_DEFRAMER_OPTIONS, ...options };
  }

  /** Bytes held while waiting for the rest of a frame. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  push(chunk: Uint8Array): DeframedItem[] {
    const out: DeframedItem[] = [];
    if (chunk.length === 0) return out;
    if (this.skipRemaining > 0) {
      const skipped = Math.min(this.skipRemaining, chunk.length);
      this.skipRemaining -= skipped;
      chunk = chunk.subarray(skipped);
      if (chunk.length === 0) return out;
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.pendingLength < 0) {
        if (this.buffered < LENGTH_PREFIX_BYTES) break;
        const length = this.takeLength();
        if (length > this.options.maxFrameBytes) {
          out.push({ ok: false, error: new WireError('FRAME_TOO_LARGE', `declared frame length ${length} bytes > maxFrameBytes ${this.options.maxFrameBytes}`, { limit: this.options.maxFrameBytes, actual: length }) });
          this.skip(length);
          if (this.skipRemaining > 0) break;
          continue;
        }
        this.pendingLength = length;
      }
      if (this.buffered < this.pendingLength) break;
      out.push({ ok: true, bytes: this.take(this.pendingLength) });
      this.pendingLength = -1;
    }
    return out;
  }

  /** Takes n buffered bytes: a view when they lie in one chunk, else one copy. */
  private take(n: number): Uint8Array {
    // A declared length of 0 can leave the queue empty; it is still one (too short) frame.
    if (n === 0) return new Uint8Array(0);
    const first = this.chunks[0]!;
    if (first.length - this.chunkOffset >= n) {
      const view = first.subarray(this.chunkOffset, this.chunkOffset + n);
      this.advance(n);
      return view;
    }
    const out = this.assemblyBuffer(n);
    let filled = 0;
    while (filled < n) {
      const head = this.chunks[0]!;
      const count = Math.min(n - filled, head.length - this.chunkOffset);
      out.set(head.subarray(this.chunkOffset, this.chunkOffset + count), filled);
      filled += count;
      this.advance(count);
    }
    return out;
  }

  /** Reads the u32 little-endian length prefix, wherever its bytes lie. */
  private takeLength(): number {
    let length = 0;
    for (let i = 0; i < LENGTH_PREFIX_BYTES; i++) {
      length += this.chunks[0]![this.chunkOffset]! * 2 ** (8 * i);
      this.advance(1);
    }
    return length;
  }

  private assemblyBuffer(n: number): Uint8Array {
    const limit = this.options.reusedBufferBytes;
    if (n > limit) return this.options.allocate(n);
    // Only the first frame a push completes can span chunks (the bytes before
    // that chunk held no whole frame), so the buffer is reused at the next push
    // at the earliest: what the contract promises.
    // Doubling keeps a run of slowly growing frames from reallocating each time.
    if (this.reused.length < n) this.reused = this.options.allocate(Math.min(limit, Math.max(n, 2 * this.reused.length)));
    return this.reused.subarray(0, n);
  }

  private advance(n: number): void {
    this.buffered -= n;
    this.chunkOffset += n;
    if (this.chunkOffset === this.chunks[0]!.length) {
      this.chunks.shift();
      this.chunkOffset = 0;
    }
  }

  /** Discards n bytes, those buffered now and the rest as they arrive. */
  private skip(n: number): void {
    while (n > 0 && this.buffered > 0) {
      const head = this.chunks[0]!;
      const count = Math.min(n, head.length - this.chunkOffset);
      this.advance(count);
      n -= count;
    }
    this.skipRemaining = n;
  }
}

/** Prefixes an encoded frame with its u32 little-endian length. */
export function lengthPrefixed(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(LENGTH_PREFIX_BYTES + frame.length);
  const n = frame.length;
  out[0] = n & 0xff;
  out[1] = (n >>> 8) & 0xff;
  out[2] = (n >>> 16) & 0xff;
  out[3] = (n >>> 24) & 0xff;
  out.set(frame, LENGTH_PREFIX_BYTES);
  return out;
}

