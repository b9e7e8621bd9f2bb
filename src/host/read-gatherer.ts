export interface ReadGathererOptions {
  /** After a piece is handed on, reads within this long are gathered into the next piece. Default 4 ms. */
  readonly gatherMs?: number;
  /** A gathered piece is handed on at once when it reaches this many UTF-16 units. Default 64 Ki. */
  readonly maxChars?: number;
}

export const READ_GATHER_DEFAULTS = { gatherMs: 4, maxChars: 64 * 1024 } as const;

/**
 * Gathers a terminal's reads into fewer, larger pieces. A PTY read returns at
 * most 4 KiB, so a `cat` would otherwise cost one Output frame, one screen
 * write and one socket write per 4 KiB on the host, and as much again in the
 * client. A read after a quiet spell is handed on at once (a keystroke's echo
 * waits for nothing); reads that follow within `gatherMs` are joined and handed
 * on when the window ends or the piece reaches `maxChars`, so a stream of
 * output gains at most `gatherMs` of latency.
 */
export class ReadGatherer {
  private readonly chunks: string[] = [];
  private chars = 0;
  private window: NodeJS.Timeout | undefined;
  private readonly gatherMs: number;
  private readonly maxChars: number;

  constructor(
    private readonly handOn: (data: string) => void,
    options: ReadGathererOptions = {},
  ) {
    this.gatherMs = options.gatherMs ?? READ_GATHER_DEFAULTS.gatherMs;
    this.maxChars = options.maxChars ?? READ_GATHER_DEFAULTS.maxChars;
  }

  add(chunk: string): void {
    if (this.window === undefined) {
      this.handOn(chunk);
      this.openWindow();
      return;
    }
    this.chunks.push(chunk);
    this.chars += chunk.length;
    if (this.chars >= this.maxChars) this.handOnGathered();
  }

  /** Hands on what was gathered now and ends the window (before an exit is reported, so output never trails it). */
  flush(): void {
    clearTimeout(this.window);
    this.window = undefined;
    this.handOnGathered();
  }

  private openWindow(): void {
    this.window = setTimeout(() => {
      // Output kept coming: hand it on and keep gathering; a quiet window ends gathering.
      if (this.chunks.length > 0) {
        this.handOnGathered();
        this.openWindow();
      } else this.window = undefined;
    }, this.gatherMs);
  }

  private handOnGathered(): void {
    if (this.chunks.length === 0) return;
    const data = this.chunks.length === 1 ? this.chunks[0]! : this.chunks.join('');
    this.chunks.length = 0;
    this.chars = 0;
    this.handOn(data);
  }
}
