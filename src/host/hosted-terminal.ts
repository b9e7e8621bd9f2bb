import { randomBytes } from 'node:crypto';
import { ScreenModel } from './screen.js';
import type { ScreenThread } from './screen-thread.js';
import { OutputHistory } from './output-history.js';
import { screenCells, screenSizeRefusal } from './screen-limits.js';
import type { HostLimits } from './options.js';
import { splitUtf8, truncateUtf8 } from './utf8-chunks.js';
import type { TerminalBackend, TerminalExit } from './terminal.js';

/** What a stream hears from its terminal. */
export interface TerminalSubscriber {
  /** One Output payload; `seqAfter` is the high-water mark after it. */
  output(payload: Uint8Array, seqAfter: number): void;
  resized(cols: number, rows: number, seq: number): void;
  title(title: string, seq: number): void;
  exit(exit: TerminalExit, seq: number): void;
  /**
   * Output bytes this subscriber has queued and not yet been able to send
   * (its flow window is shut); undefined for one that never holds the
   * program (a paused pane, a stream without ackOutput).
   */
  queuedOutputBytes?(): number | undefined;
}

/** What the runtime hears from a terminal it serves, to run its lifecycle. */
export interface TerminalLifecycleEvents {
  /** The process ended; subscribers have heard it already. */
  exited?(terminal: HostedTerminal): void;
  /** A subscriber came or went; `subscriberCount` says how many remain. */
  subscribersChanged?(terminal: HostedTerminal): void;
  /** Delivering an event to one subscriber threw (a host bug): the others were told, and the host goes on. */
  subscriberFailed?(terminal: HostedTerminal, error: unknown): void;
  /** Why this terminal may not grow to cols x rows given the others (the host-wide screen budget), or undefined. */
  sizeRefusal?(terminal: HostedTerminal, cols: number, rows: number): string | undefined;
  /** The screen's parse work queued went past maxScreenBacklogMs (behind), or back under half of it: the terminal's reads are held meanwhile. */
  screenBehind?(terminal: HostedTerminal, behind: boolean, backlogMs: number): void;
  /** This terminal's share of the host-wide screen backlog (maxTotalScreenBacklogBytes), when less than screenBacklogBytes. */
  screenBacklogShare?(): number;
  /** This terminal's share of the host-wide output history (maxTotalOutputHistoryBytes), when less than outputHistoryBytes. */
  outputHistoryShare?(): number;
}

/** Marks a title the host cut: a viewer sees it is not the whole of what the program set. */
export const TITLE_CUT_MARKER = '…';

/** The title cut to `maxBytes` of UTF-8, marker included, when it is longer. */
export function boundedTitle(title: string, maxBytes: number): string {
  const cut = truncateUtf8(title, maxBytes);
  return cut === title ? title : `${truncateUtf8(title, maxBytes - new TextEncoder().encode(TITLE_CUT_MARKER).length)}${TITLE_CUT_MARKER}`;
}

/** 96 random bits: ids of terminals started by different runtimes never collide in practice. */
export function randomInstanceId(): string {
  return randomBytes(12).toString('hex');
}

const utf8 = new TextEncoder();
/** Why a terminal is not read: its screen is behind in bytes or in work, or every subscriber is behind. */
type ReadHold = 'screen' | 'screen work' | 'subscribers';
/** How long end() waits, past the SIGKILL, for the exit to be reported. */
const EXIT_REPORT_MARGIN_MS = 250;

/**
 * A backend as the host serves it: output counted into the high-water mark
 * (UTF-8 bytes since start, shared by every stream), fed to the screen model,
 * and fanned out to the streams attached.
 */
export class HostedTerminal {
  readonly screen: ScreenModel;
  /** This process's id, published in `subscribed`: a client that finds another id knows its old shell is gone. */
  readonly instanceId: string;
  private hwm = 0;
  /** The output after a resume point, for a client that lost its link (see resume-decision.ts). */
  readonly history = new OutputHistory();
  private resizedAtSeq: number | undefined;
  /** The last snapshot any stream sent of this screen: its size, and the seq it was taken at (see expectedSnapshotBytes). */
  private lastSnapshot = { bytes: 0, seq: 0 };
  /** The screen's parsed seq when last asked; reads pause while the screen is screenBacklogBytes behind it. */
  private screenCaughtUp = 0;
  private askingParsedSeq = false;
  /** Why the terminal is not read: its screen is behind, or every subscriber is (see reviewSubscriberBacklog). */
  private readonly readHolds = new Set<ReadHold>();
  /** Ends a subscribers' hold that lasted maxSubscriberHoldMs (a client that stopped reading must not stop the program for good). */
  private holdExpiry: NodeJS.Timeout | undefined;
  /** The hold expired and no subscriber has caught up since: not held again until one does. */
  private holdExpired = false;
  private currentTitle: string | undefined;
  /** Resize coalescing (see resize). */
  private lastResizeAt = -Infinity;
  private pendingSize: { cols: number; rows: number } | undefined;
  private resizeTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  private exitInfo: TerminalExit | undefined;
  private readonly subscribers = new Set<TerminalSubscriber>();
  private readonly detach: Array<() => void> = [];
  private readonly exitSeen: Promise<void>;
  private markExited!: () => void;

  constructor(
    readonly name: string,
    readonly backend: TerminalBackend,
    private readonly limits: HostLimits,
    private readonly events: TerminalLifecycleEvents = {},
    newInstanceId: () => string = randomInstanceId,
    screenThread?: ScreenThread,
  ) {
    this.instanceId = newInstanceId();
    this.exitSeen = new Promise((resolve) => (this.markExited = resolve));
    this.screen = new ScreenModel({ cols: backend.cols || limits.defaultCols, rows: backend.rows || limits.defaultRows, scrollback: limits.scrollbackLines, maxLinks: limits.maxScreenLinks, parseSliceMs: limits.screenParseSliceMs, maxBacklogMs: limits.maxScreenBacklogMs }, screenThread);
    this.detach.push(this.screen.onTitle((title) => this.onTitle(title)));
    // A screen that cannot follow its terminal's output would serve wrong snapshots: the terminal ends instead.
    this.detach.push(this.screen.onFailed(() => this.backend.kill()));
    // Output that costs more per byte than screenBacklogBytes assumes: held by its work too, so its own snapshots wait at most about maxScreenBacklogMs.
    this.detach.push(
      this.screen.onBehind((behind, backlogMs) => {
        this.holdReads('screen work', behind);
        this.events.screenBehind?.(this, behind, backlogMs);
      }),
    );
    this.detach.push(backend.onData((data) => this.onOutput(data)));
    this.detach.push(backend.onExit((exit) => this.onExit(exit)));
  }

  /** A snapshot of `bytes` was sent, taken at `seq`. */
  snapshotSent(bytes: number, seq: number): void {
    this.lastSnapshot = { bytes, seq };
  }

  /**
   * What the next snapshot is likely to cost, for maxSnapshotBytesPerSecond:
   * the last one, plus the output since (a screen shows no more than it was
   * sent), at most 32 bytes a cell.
   */
  expectedSnapshotBytes(): number {
    return Math.min(this.lastSnapshot.bytes + Math.max(0, this.hwm - this.lastSnapshot.seq), screenCells(this.cols, this.rows, this.limits) * 32);
  }

  /** The output high-water mark: UTF-8 bytes of output since the terminal started. */
  get seq(): number {
    return this.hwm;
  }

  /** The seq at which the terminal last changed size; undefined when it never did. */
  get lastResizeSeq(): number | undefined {
    return this.resizedAtSeq;
  }

  /** Cuts the history to this terminal's share now: the runtime calls it when a terminal starts, so the shares shrink before the newcomer prints. */
  trimHistory(): void {
    this.history.trim(this.historyLimit());
  }

  private historyLimit(): number {
    return Math.min(this.limits.outputHistoryBytes, this.events.outputHistoryShare?.() ?? Infinity);
  }

  get cols(): number {
    return this.screen.cols;
  }

  get rows(): number {
    return this.screen.rows;
  }

  get title(): string | undefined {
    return this.currentTitle;
  }

  get exit(): TerminalExit | undefined {
    return this.exitInfo;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  attach(subscriber: TerminalSubscriber): void {
    this.subscribers.add(subscriber);
    this.events.subscribersChanged?.(this);
    // After the caller has asked for the new stream's first snapshot: a backend that resumes synchronously would otherwise deliver output ahead of it.
    queueMicrotask(() => this.reviewSubscriberBacklog());
  }

  detachSubscriber(subscriber: TerminalSubscriber): void {
    if (this.subscribers.delete(subscriber)) this.events.subscribersChanged?.(this);
    this.reviewSubscriberBacklog();
  }

  /**
   * Output is skipped only for a subscriber slower than the others: while
   * every subscriber that holds the program has more than subscriberHoldBytes
   * queued (at most half of streamQueueMaxBytes), the terminal is not read,
   * and its program waits as it would on a slow terminal (as under ssh)
   * instead of its output being dropped for a recovery snapshot. Reading goes
   * on once one of them is down to half that, or after maxSubscriberHoldMs
   * without that (then the ones still behind overflow into recovery
   * snapshots). A terminal nobody watches, or that one subscriber keeps up
   * with, is always read. Subscribers call this when their queue shrinks.
   */
  reviewSubscriberBacklog(): void {
    if (this.disposed) return;
    const holdBytes = Math.min(this.limits.subscriberHoldBytes, this.limits.streamQueueMaxBytes / 2);
    const holding = this.readHolds.has('subscribers');
    const threshold = holding ? holdBytes / 2 : holdBytes;
    let behind = this.subscribers.size > 0;
    for (const s of this.subscribers) {
      const queued = s.queuedOutputBytes?.();
      if (queued === undefined || queued <= threshold) behind = false;
    }
    if (!behind) this.holdExpired = false;
    const hold = behind && !this.holdExpired;
    if (hold && !holding) {
      this.holdExpiry = setTimeout(() => {
        this.holdExpiry = undefined;
        this.holdExpired = true;
        this.reviewSubscriberBacklog();
      }, this.limits.maxSubscriberHoldMs);
    } else if (!hold) {
      clearTimeout(this.holdExpiry);
      this.holdExpiry = undefined;
    }
    this.holdReads('subscribers', hold);
  }

  /** Pauses the backend while any hold is on, resumes it when the last is off. */
  private holdReads(reason: ReadHold, hold: boolean): void {
    const wasHeld = this.readHolds.size > 0;
    if (hold) this.readHolds.add(reason);
    else this.readHolds.delete(reason);
    const held = this.readHolds.size > 0;
    if (held && !wasHeld) this.backend.pause?.();
    else if (!held && wasHeld && !this.disposed) this.backend.resume?.();
  }

  /** Resizes the PTY and the screen, or returns why not (RESIZE_TOO_LARGE) and allocates nothing. */
  /**
   * Resizes the terminal, or says why not. Sizes are applied at most once per
   * minResizeIntervalMs: one that comes sooner waits for the end of the
   * interval, and only the last one asked for by then is applied (a window
   * dragged, or a client flooding ClaimViewport, costs one resize of the PTY
   * and the screen, and one Resized per subscriber, per interval).
   */
  resize(cols: number, rows: number): string | undefined {
    const refusal = screenSizeRefusal(cols, rows, this.limits) ?? this.events.sizeRefusal?.(this, cols, rows);
    if (refusal) return refusal;
    const wait = this.lastResizeAt + this.limits.minResizeIntervalMs - Date.now();
    if (wait <= 0 && !this.pendingSize) return void this.applySize(cols, rows);
    this.pendingSize = { cols, rows };
    this.resizeTimer ??= setTimeout(() => {
      this.resizeTimer = undefined;
      const size = this.pendingSize;
      this.pendingSize = undefined;
      if (size && !this.disposed) this.applySize(size.cols, size.rows);
    }, Math.max(0, wait));
    return undefined;
  }

  /** The size this terminal is resizing to (a coalesced size not yet applied), else its size: what the host-wide screen budget counts. */
  get plannedSize(): { cols: number; rows: number } {
    return this.pendingSize ?? { cols: this.cols, rows: this.rows };
  }

  private applySize(cols: number, rows: number): void {
    this.lastResizeAt = Date.now();
    this.resizedAtSeq = this.hwm;
    this.backend.resize(cols, rows);
    this.screen.resize(cols, rows);
    this.fanOut((s) => s.resized(cols, rows, this.hwm));
  }

  /**
   * Ends the process (SIGHUP, then SIGKILL `graceMs` later) and frees the
   * screen once it exited; resolves then, or a short while after the SIGKILL
   * in case its exit is never reported.
   */
  async end(graceMs: number): Promise<void> {
    this.backend.kill(graceMs);
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs + EXIT_REPORT_MARGIN_MS)));
    await Promise.race([this.exitSeen, giveUp]);
    clearTimeout(timer);
    this.dispose();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.resizeTimer);
    clearTimeout(this.holdExpiry);
    for (const off of this.detach.splice(0)) off();
    this.subscribers.clear();
    this.history.trim(0);
    this.backend.kill();
    this.screen.dispose();
  }

  private onOutput(data: string): void {
    const bytes = utf8.encode(data);
    const pieces = splitUtf8(bytes, this.limits.outputFrameBytes);
    for (const piece of pieces) {
      this.hwm += piece.length;
      this.history.append(piece, this.hwm, this.historyLimit());
      // Each piece goes to the screen with its own seq, so a snapshot taken
      // between two pieces still matches the seq it claims.
      // xterm parses UTF-8 bytes faster than a JS string (measured 15 against 18.5 ms/MiB of log text).
      this.screen.write(piece, this.hwm);
      this.fanOut((s) => s.output(piece, this.hwm));
    }
    this.watchScreenBacklog();
    this.reviewSubscriberBacklog();
  }

  /**
   * The screen parses on its own thread, so output can run ahead of it. The
   * parsed seq is asked for once half the backlog limit is outstanding; past
   * the limit the terminal is not read until its screen has caught up, and a
   * program that writes faster than its screen parses waits, as on a slow
   * terminal, instead of queueing without bound.
   */
  private watchScreenBacklog(): void {
    // Its share of the host-wide budget when that is smaller: sixty detached printers once held 8 MiB each.
    const limit = Math.min(this.limits.screenBacklogBytes, this.events.screenBacklogShare?.() ?? Infinity);
    const backlog = this.hwm - this.screenCaughtUp;
    if (backlog > limit) this.holdReads('screen', true);
    if (backlog <= limit / 2 || this.askingParsedSeq) return;
    this.askingParsedSeq = true;
    this.screen.whenParsed((seq) => {
      this.askingParsedSeq = false;
      this.screenCaughtUp = seq;
      if (!this.readHolds.has('screen')) return;
      if (this.hwm - seq <= limit) this.holdReads('screen', false);
      else this.watchScreenBacklog();
    });
  }

  private onTitle(raw: string): void {
    const title = boundedTitle(raw, this.limits.maxTitleBytes);
    this.currentTitle = title;
    this.fanOut((s) => s.title(title, this.hwm));
  }

  /**
   * Tells every subscriber; one whose delivery throws is reported and dropped
   * from this event, never allowed to take down the terminal, the other
   * subscribers or the host (what a program prints arrives here).
   */
  private fanOut(tell: (s: TerminalSubscriber) => void): void {
    for (const s of [...this.subscribers]) {
      try {
        tell(s);
      } catch (error) {
        this.events.subscriberFailed?.(this, error);
      }
    }
  }

  private onExit(exit: TerminalExit): void {
    this.exitInfo = exit;
    this.fanOut((s) => s.exit(exit, this.hwm));
    this.markExited();
    this.events.exited?.(this);
  }
}
