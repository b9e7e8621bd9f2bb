export type OutputVerdict =
  /** Continues the last known seq: apply it. */
  | 'apply'
  /** Wholly covered by what we already have (seq <= last): drop it. */
  | 'stale'
  /** Does not continue the last known seq: resynchronise with a snapshot. */
  | 'gap'
  /** A snapshot is awaited; output until then is covered by it. */
  | 'awaitingSnapshot';

/**
 * Judges Output by its seq. Output seq is the high-water mark after the
 * frame in UTF-8 bytes, so `seq - payloadBytes` must equal the last known seq.
 */
export class OutputTracker {
  private last: number | undefined;
  private awaiting = true;

  get lastSeq(): number | undefined {
    return this.last;
  }

  get awaitingSnapshot(): boolean {
    return this.awaiting;
  }

  judge(seq: number, payloadBytes: number): OutputVerdict {
    if (this.awaiting || this.last === undefined) return 'awaitingSnapshot';
    if (seq - payloadBytes === this.last) {
      this.last = seq;
      return 'apply';
    }
    if (seq <= this.last) return 'stale';
    return 'gap';
  }

  /** Output until the next snapshot is ignored (a gap, a reveal, a new subscription). */
  expectSnapshot(): void {
    this.awaiting = true;
  }

  /** Output continues from `seq` with no snapshot (a resumed subscription): the host replays what came after it. */
  resumeAt(seq: number): void {
    this.snapshotApplied(seq);
  }

  snapshotApplied(seq: number): void {
    this.last = seq;
    this.awaiting = false;
  }

  /** The connection is gone: nothing is known until the next subscription's snapshot. */
  reset(): void {
    this.last = undefined;
    this.awaiting = true;
  }
}

/** Splits an Error frame's text `"CODE: message"`; text without a code gets code UNKNOWN. */
export function parseErrorText(text: string): { code: string; message: string } {
  const match = /^([A-Z][A-Z0-9_]*): ?([\s\S]*)$/.exec(text);
  return match ? { code: match[1]!, message: match[2]! } : { code: 'UNKNOWN', message: text };
}
