import type { ScrolledPastLook } from '../screen/scrolled-past.js';
import type { XtermParse } from '../screen/xterm-internals.js';
import type { ParseJob, ParseOutcome, ParseScheduler, ParseSlice } from './parse-scheduler.js';
import { SliceWork } from './slice-work.js';

/** Bounds of the piece of output parsed between two looks at the clock. */
export const PIECE_BYTES = { min: 64, max: 4096 } as const;

/** Units parsed after which what was measured before them counts half towards the pace. */
export const PACE_HALF_LIFE_UNITS = 16 * 1024;
/** Units measured before the pace is trusted: fewer say more about a cold parser than about the output. */
export const PACE_MIN_UNITS = 1024;

/**
 * Units (bytes, or UTF-16 code units) a screen may have waiting to be
 * parsed: xterm's write buffer refuses a write past this many, and the
 * host's screenBacklogBytes holds a program long before. Only a backend that
 * cannot be held reaches it, and its screen fails rather than queue without
 * end.
 */
export const MAX_QUEUED_UNITS = 50_000_000;

/** Output queued past which the feed looks for plain text the screen would only scroll out (ScrolledPast), and the least it grows by before the next look. */
export const SCROLLED_PAST_LOOK_UNITS = 4 * 1024;

/**
 * How long after its last write a screen with a ScrolledPast leaves output
 * unparsed while less than a look's worth is queued: a flood's next write
 * may scroll it out, and then it is never parsed. A query or a snapshot
 * has it parsed at once; this bounds what else waits (a title).
 */
export const SCROLLED_PAST_WAIT_MS = 20;

/** How a screen finds output it would only scroll out (src/screen/scrolled-past.ts). */
export interface ScrolledPast {
  /** Whether the screen, as the output parsed so far left it, may leave output unparsed at all. */
  ready(): boolean;
  /** How many units of the output from `offset` in the first chunk it may leave unparsed (`skip`), and how many from there it read as plain text (`plain`). */
  look(queued: Iterable<string | Uint8Array>, offset: number): ScrolledPastLook;
}

/** `nextSlices`: slices of work the work may still take before the round's (queueWork). */
type FeedItem = { readonly data: string | Uint8Array; readonly seq: number } | { readonly barrier: () => void } | { readonly work: FeedWork; nextSlices: number };

/**
 * Work on the screen done in the feed's turns, in order with the output and
 * in slices of its own: a snapshot's serialisation. The output behind it
 * waits until it is done, so the screen stays as it was when it started.
 */
export interface FeedWork {
  /** Works until `over()` (at least one step); true once done. */
  run(over: () => boolean): boolean;
}

/** What the screen hears as its output is parsed. */
export interface FeedEvents {
  /** Everything up to this write's high-water mark is on the screen. */
  parsed(seq: number): void;
  /** A piece was parsed: the screen may have changed. */
  changed(): void;
  /** The output queued would take over maxBacklogMs to parse at this screen's measured pace (true, with the estimate), or is back under half of it (false). */
  behind(behind: boolean, backlogMs: number): void;
}

/**
 * One screen's output waiting to be parsed, fed to xterm's parser by the
 * ParseScheduler rather than through xterm's write buffer, which decides on
 * its own when to run and for how long. Output is parsed in pieces, the clock
 * read between them; a piece that took longer than the slice halves the next
 * (a line feed at 1000x1000 costs 18 µs, so 4 KiB of them was 75 ms), one far
 * under it doubles it back. Barriers (queries) run in order with the output,
 * and so does work (FeedWork), in slices like the parse.
 */
export class ScreenFeed implements ParseJob {
  private readonly items: FeedItem[] = [];
  /** Where the next piece of the first write starts. */
  private offset = 0;
  private pieceBytes: number = PIECE_BYTES.max;
  private queuedUnits = 0;
  /**
   * Parse time and units measured lately, each decayed by half every
   * PACE_HALF_LIFE_UNITS units parsed: their ratio is the screen's pace. Weighed
   * by units, not by pieces, so one small piece that was slow (xterm's first
   * parse, a busy machine taking the thread away) cannot set the pace of the
   * large write behind it.
   */
  private recentMs = 0;
  private recentUnits = 0;
  /** Parse time spent on the piece under way, over its pauses. */
  private pieceMs = 0;
  private isBehind = false;
  /** A piece whose parse paused at a pause point: it is parsed on from there, with the pause's result, before anything else. */
  private resume: { readonly piece: string | Uint8Array; readonly end: number; result: boolean } | undefined;
  /** Units taken off the queue so far, parsed or left unparsed: where the queue's head is in the output. */
  private consumedUnits = 0;
  /**
   * When the next look for output the screen would only scroll out is due:
   * once the head is at `head` (past the end of the plain text the last look
   * read) and `queued` units wait. Looks read the queue, so they are spaced
   * by what it takes for one to find more.
   */
  private nextLook = { head: 0, queued: SCROLLED_PAST_LOOK_UNITS };
  /** The last look read plain text to the end of the queue: a flood that goes on may scroll out what waits now. Until the queue empties or a look says otherwise. */
  private inPlainFlood = false;
  /** When the last write came (the scheduler's clock), and the timer that has the queue parsed once SCROLLED_PAST_WAIT_MS have passed since. */
  private lastWriteAt = 0;
  private waitTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly parse: XtermParse,
    readonly sliceMs: number,
    /** Parse work, in ms at the screen's measured pace, the queue may hold before `behind` is reported (maxScreenBacklogMs). */
    private readonly maxBacklogMs: number,
    private readonly scheduler: ParseScheduler,
    private readonly events: FeedEvents,
    readonly failed: (error: unknown) => void,
    private readonly scrolledPast?: ScrolledPast,
  ) {}

  /** Nothing queued and no parse paused halfway: the screen shows everything written. */
  get idle(): boolean {
    return this.items.length === 0 && !this.resume;
  }

  /** The parser stopped at a pause point inside a piece: the terminal's parser state is mid-sequence. */
  get pausedInPiece(): boolean {
    return this.resume !== undefined;
  }

  write(data: string | Uint8Array, seq: number): void {
    if (this.queuedUnits + data.length > MAX_QUEUED_UNITS) {
      throw new Error(`write data discarded: ${this.queuedUnits + data.length} units would wait to be parsed > ${MAX_QUEUED_UNITS}`);
    }
    this.queuedUnits += data.length;
    this.items.push({ data, seq });
    this.lastWriteAt = this.scheduler.now();
    this.scheduler.ready(this);
    this.reviewBacklog();
  }

  /** Runs `barrier` once every write so far is parsed: now (and false is returned) when the screen is idle. */
  whenParsed(barrier: () => void): boolean {
    if (this.idle) return false;
    this.items.push({ barrier });
    this.scheduler.ready(this); // the output before it may be waiting (SCROLLED_PAST_WAIT_MS)
    return true;
  }

  /**
   * Runs `work` in this feed's turns once every write so far is parsed, and
   * holds the output written later until it is done. `nextSlices`: for the
   * work of an idle feed that a request waits for, slices of work it takes
   * before the round's (ParseScheduler.readyNext); then it waits its turns
   * like output. Counted in work, not turns: a turn in which a busy machine
   * took the thread away did less, and counts for what it did.
   */
  queueWork(work: FeedWork, nextSlices = 0): void {
    const item = { work, nextSlices };
    this.items.push(item);
    if (item.nextSlices > 0 && this.items.length === 1) this.scheduler.readyNext(this);
    else this.scheduler.ready(this);
  }

  /** Leaves the round, dropping what is queued; returns the barriers and work that waited, in order, to be done now (work in one go). */
  drop(): Array<() => void> {
    this.scheduler.remove(this);
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    const barriers = this.items.flatMap((item) => ('barrier' in item ? [item.barrier] : 'work' in item ? [() => void item.work.run(() => false)] : []));
    this.items.length = 0;
    this.queuedUnits = 0;
    return barriers;
  }

  /** Parses at least one piece (or the rest of a paused one), so a slice already over still moves the screen on. */
  runSlice(slice: ParseSlice): ParseOutcome {
    const outcome = this.parseSlice(slice);
    this.reviewBacklog();
    return outcome;
  }

  private parseSlice(slice: ParseSlice): ParseOutcome {
    const cost = new SliceWork(slice);
    for (let first = true; ; first = false) {
      if (this.resume) {
        const started = cost.start();
        const paused = this.parse(this.resume.piece, this.resume.result);
        this.pieceMs += cost.since(started);
        if (paused) return this.pause(this.resume.piece, this.resume.end, paused);
        this.measure(this.resume.piece.length);
        this.pieceDone(this.resume.end);
        this.resume = undefined;
        continue;
      }
      const head = this.items[0];
      if (!head) return 'idle';
      if ('barrier' in head) {
        this.items.shift();
        head.barrier();
        continue;
      }
      if (!first && slice.over()) return 'more';
      if ('work' in head) {
        const started = cost.start();
        if (!head.work.run(slice.over)) {
          head.nextSlices -= Math.min(1, cost.since(started) / this.sliceMs);
          return head.nextSlices > 0 ? 'next' : 'more';
        }
        this.items.shift();
        continue;
      }
      if (this.skipScrolledPast()) continue;
      if (this.waitsForMore()) return 'idle';
      const end = Math.min(head.data.length, this.offset + this.pieceBytes);
      const piece = this.offset === 0 && end === head.data.length ? head.data : cut(head.data, this.offset, end);
      const started = cost.start();
      const paused = this.parse(piece);
      this.pieceMs = cost.since(started);
      if (paused) return this.pause(piece, end, paused);
      this.adaptPiece(this.pieceMs);
      this.measure(piece.length);
      this.pieceDone(end);
    }
  }

  /**
   * Leaves the output at the head of the queue unparsed where the screen
   * would only scroll it out (a flood of plain text), as if it had been
   * parsed; true when it did. The queue is read up to its first query or work,
   * which must see the screen as the output before it left it.
   */
  private skipScrolledPast(): boolean {
    if (!this.scrolledPast || this.queuedUnits < this.nextLook.queued || this.consumedUnits < this.nextLook.head) return false;
    if (!this.scrolledPast.ready()) {
      this.nextLook = { head: this.consumedUnits + 1, queued: SCROLLED_PAST_LOOK_UNITS };
      return false;
    }
    const { skip: found, plain, open } = this.scrolledPast.look(this.queuedOutput(), this.offset);
    // A look that read to the end of the queue finds more once as much again has come; one cut short by a byte that is
    // not plain text, or by a query, finds nothing until the head is past where it stopped.
    const left = this.queuedUnits - found;
    this.inPlainFlood = open;
    this.nextLook = this.inPlainFlood ? { head: 0, queued: Math.max(2 * left, left + SCROLLED_PAST_LOOK_UNITS) } : { head: this.consumedUnits + plain + 1, queued: SCROLLED_PAST_LOOK_UNITS };
    let skip = found;
    if (skip === 0) return false;
    while (skip > 0) {
      const head = this.items[0] as { readonly data: string | Uint8Array; readonly seq: number };
      const end = Math.min(head.data.length, this.offset + skip);
      skip -= end - this.offset;
      this.pieceDone(end);
    }
    return true;
  }

  /**
   * Whether to leave the queue unparsed for now: in a flood of plain text,
   * less than the next look's worth is queued, nothing waits for it, and the
   * last write came less than SCROLLED_PAST_WAIT_MS ago. A timer brings the
   * feed back once that has passed.
   */
  private waitsForMore(): boolean {
    if (!this.inPlainFlood || this.queuedUnits >= this.nextLook.queued) return false;
    if (this.items.some((item) => !('data' in item))) return false;
    const waitMs = this.lastWriteAt + SCROLLED_PAST_WAIT_MS - this.scheduler.now();
    if (waitMs <= 0) return false;
    this.waitTimer ??= setTimeout(() => {
      this.waitTimer = undefined;
      this.scheduler.ready(this);
    }, Math.ceil(waitMs));
    return true;
  }

  /** The output queued ahead of the first query or work, oldest first. */
  private *queuedOutput(): Generator<string | Uint8Array> {
    for (const item of this.items) {
      if (!('data' in item)) return;
      yield item.data;
    }
  }

  private pause(piece: string | Uint8Array, end: number, paused: Promise<boolean>): Promise<unknown> {
    const resume = { piece, end, result: false };
    this.resume = resume;
    return paused.then(
      (result) => void (resume.result = result),
      () => undefined, // as xterm's write buffer takes a rejected handler: not handled, parsing goes on
    );
  }

  private pieceDone(end: number): void {
    this.events.changed();
    const head = this.items[0];
    if (!head || !('data' in head)) return;
    this.queuedUnits -= end - this.offset;
    this.consumedUnits += end - this.offset;
    if (this.queuedUnits === 0) {
      this.nextLook = { head: 0, queued: SCROLLED_PAST_LOOK_UNITS };
      this.inPlainFlood = false;
    }
    this.offset = end;
    if (end < head.data.length) return;
    this.items.shift();
    this.offset = 0;
    this.events.parsed(head.seq);
  }

  private measure(units: number): void {
    if (units === 0) return;
    const decay = 0.5 ** (units / PACE_HALF_LIFE_UNITS);
    this.recentMs = this.recentMs * decay + this.pieceMs;
    this.recentUnits = this.recentUnits * decay + units;
    this.pieceMs = 0;
  }

  /** What a unit of this screen's output has cost to parse lately, in ms; 0 until PACE_MIN_UNITS were measured. */
  private get msPerUnit(): number {
    return this.recentUnits < PACE_MIN_UNITS ? 0 : this.recentMs / this.recentUnits;
  }

  /** Reports the screen behind past maxBacklogMs of work queued, and caught up under half of it. */
  private reviewBacklog(): void {
    const backlogMs = this.queuedUnits * this.msPerUnit;
    const behind = this.isBehind ? backlogMs > this.maxBacklogMs / 2 : backlogMs > this.maxBacklogMs;
    if (behind === this.isBehind) return;
    this.isBehind = behind;
    this.events.behind(behind, backlogMs);
  }

  private adaptPiece(tookMs: number): void {
    if (tookMs > this.sliceMs) this.pieceBytes = Math.max(PIECE_BYTES.min, this.pieceBytes >> 1);
    else if (tookMs * 8 < this.sliceMs) this.pieceBytes = Math.min(PIECE_BYTES.max, this.pieceBytes * 2);
  }
}

/** A code point cut between two pieces is carried by xterm's decoders, as bytes and as text. */
function cut(data: string | Uint8Array, from: number, to: number): string | Uint8Array {
  return typeof data === 'string' ? data.slice(from, to) : data.subarray(from, to);
}
