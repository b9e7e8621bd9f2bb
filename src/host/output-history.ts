const KiB = 1024;

/**
 * The last bytes of a terminal's output, kept so a client that lost its link
 * can be sent what it missed instead of a snapshot (outputResume). Bytes are
 * copied into fixed blocks: keeping the Output pieces themselves would keep
 * alive every buffer they were cut from, and per-piece bookkeeping would
 * cost more than a one-byte echo. What it holds is byte-exact, so memory is
 * its limit plus at most two blocks.
 */
export class OutputHistory {
  private blocks: Uint8Array[] = [];
  /** The seq of blocks[0][0]. */
  private firstBlockSeq = 0;
  /** The seq of the first byte held, and of the byte after the last. */
  private start = 0;
  private end = 0;

  constructor(private readonly blockBytes = 64 * KiB) {}

  /** The seq of the oldest byte still held. */
  get startSeq(): number {
    return this.start;
  }

  get heldBytes(): number {
    return this.end - this.start;
  }

  /** Memory the blocks take, held or not yet reused. */
  get allocatedBytes(): number {
    return this.blocks.length * this.blockBytes;
  }

  /** Appends one piece of output ending at `seqAfter`, then keeps no more than `limit` bytes. */
  append(bytes: Uint8Array, seqAfter: number, limit: number): void {
    // Pieces arrive in order; one that does not continue the last starts the history over rather than splice a hole.
    if (seqAfter - bytes.length !== this.end) this.restartAt(seqAfter - bytes.length);
    let offset = this.end - this.firstBlockSeq;
    let from = 0;
    while (from < bytes.length) {
      const index = Math.floor(offset / this.blockBytes);
      const at = offset % this.blockBytes;
      if (index === this.blocks.length) this.blocks.push(new Uint8Array(this.blockBytes));
      const n = Math.min(bytes.length - from, this.blockBytes - at);
      this.blocks[index]!.set(bytes.subarray(from, from + n), at);
      from += n;
      offset += n;
    }
    this.end = seqAfter;
    this.trim(limit);
  }

  /** Keeps at most the last `limit` bytes; whole blocks before them are freed. */
  trim(limit: number): void {
    this.start = Math.max(this.start, this.end - Math.max(0, limit));
    if (this.start === this.end) return this.restartAt(this.end);
    while (this.firstBlockSeq + this.blockBytes <= this.start) {
      this.blocks.shift();
      this.firstBlockSeq += this.blockBytes;
    }
  }

  /**
   * Every byte after `seq` up to the end, or undefined when they are not all
   * held, or `seq` would cut a UTF-8 character (a real resume point is the
   * end of an Output frame, which never does).
   */
  bytesAfter(seq: number): Uint8Array | undefined {
    if (seq < this.start || seq > this.end) return undefined;
    const out = new Uint8Array(this.end - seq);
    let offset = seq - this.firstBlockSeq;
    let to = 0;
    while (to < out.length) {
      const at = offset % this.blockBytes;
      const n = Math.min(out.length - to, this.blockBytes - at);
      out.set(this.blocks[Math.floor(offset / this.blockBytes)]!.subarray(at, at + n), to);
      to += n;
      offset += n;
    }
    return out.length > 0 && (out[0]! & 0xc0) === 0x80 ? undefined : out;
  }

  private restartAt(seq: number): void {
    this.blocks = [];
    this.firstBlockSeq = this.start = this.end = seq;
  }
}
