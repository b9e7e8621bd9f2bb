import type { InputAckFlagStatus } from '../codec/input-ack-flags.js';
import { type DeliveryNotice, type DeliveryNoticeCode, DELIVERY_NOTICE_CODES, type DeliveryNoticeEntry } from './notices.js';
import { pastePieces, utf8Length } from './paste.js';
import { DEFAULT_DELIVERY_OPTIONS, type DeliveryClock, type DeliveryOptions } from './options.js';

/** Where the journal sends sequenced Input: the current stream, once the host echoed inputAck. */
export type InputSink = (seq: number, data: string) => void;

/**
 * Why an input was not applied, or cannot be said to have been: a delivery
 * notice's code, or one of these. Stable once shipped.
 */
export const INPUT_NOT_APPLIED_CODES = {
  WITHDRAWN: 'the input was withdrawn (a cancelled paste) before the host applied it; it was never written',
  UNCONFIRMABLE: 'the host does not sequence input (no inputAck): the input was sent, but nothing can confirm it was applied',
  CLOSED: 'the stream closed before the host confirmed the input',
  REFUSED: 'the input was refused before it was sent (held input past maxHeldInputBytes, or the stream is closing)',
  TIMED_OUT: 'the paste was not applied within pasteTimeoutMsPerChunk per chunk and was withdrawn: its chunks the host had not received were never written',
} as const;

export type InputNotAppliedCode = keyof typeof INPUT_NOT_APPLIED_CODES | Exclude<DeliveryNoticeCode, 'PERSISTENT_REFUSAL' | 'BOGUS_ACK'>;

/** How one input ended: applied by the host (its InputAck), or not, with the reason. */
export type InputOutcome = { readonly applied: true } | { readonly applied: false; readonly code: InputNotAppliedCode; readonly message: string };

/** Told once, when an input's outcome is known. */
export type InputSettled = (outcome: InputOutcome) => void;

interface Entry {
  seq: number;
  /** '' once withdrawn, or once dropped past the retention budget: resent as an empty slot. */
  data: string;
  readonly bytes: number;
  readonly op: number | undefined;
  withdrawn: boolean;
  /** Handed to a sink at least once: it may have reached a ledger. */
  sent: boolean;
  /** Sent once past a budget gap, then emptied: its ack may be for the empty slot. */
  budgetDropped?: boolean;
  /** Told the outcome once, then cleared. */
  settled?: InputSettled | undefined;
}

export interface JournalEvents {
  notice(notice: DeliveryNotice): void;
}

/**
 * The client's go-back-N sender for one input session: every unacked input in
 * order, numbered from 1. Acks are cumulative; everything after the host's
 * appliedSeq is resent on a resend request (with backoff), on a new stream,
 * and when acks stop progressing. Runtime-neutral: clock and sink injected.
 */
export class InputJournal {
  private entries: Entry[] = [];
  private nextSeq = 1;
  private acked = 0;
  private retainedBytes = 0;
  /** Set while an entry past the budget is unacked: nothing from it on is replayed. */
  private budgetGapSeq: number | undefined;
  private ledgerId: string | undefined;
  private sink: InputSink | undefined;
  private resendTimer: unknown;
  private stallTimer: unknown;
  private backoffMs: number;
  private requestsWithoutProgress = 0;
  private escalated = false;
  private nextOp = 1;
  /** Frames handed to a sink, resends included: the model test checks they stop. */
  framesSent = 0;

  constructor(
    private readonly clock: DeliveryClock,
    private readonly events: JournalEvents,
    private readonly options: DeliveryOptions = DEFAULT_DELIVERY_OPTIONS,
  ) {
    this.backoffMs = options.resendInitialDelayMs;
  }

  /** The host's cumulative appliedSeq as last acked. */
  get ackedSeq(): number {
    return this.acked;
  }

  get unackedCount(): number {
    return this.entries.length;
  }

  /** Bytes held for input not yet handed to any stream. */
  get unsentBytes(): number {
    let total = 0;
    for (const e of this.entries) if (!e.sent) total += e.bytes;
    return total;
  }

  get attached(): boolean {
    return this.sink !== undefined;
  }

  /** True when a resend or stall timer is armed; false once everything settled. */
  get timersArmed(): boolean {
    return this.resendTimer !== undefined || this.stallTimer !== undefined;
  }

  /** Journals one input as one sequence, and sends it when a stream is attached; `settled` hears its outcome once. */
  append(data: string, settled?: InputSettled): number {
    return this.add(data, undefined, utf8Length(data), settled);
  }

  /**
   * Journals a paste as chunks of at most pasteChunkBytes, each its own
   * sequence; returns the operation id. `settled` hears the paste's outcome
   * once: applied when every chunk was, else the first chunk's outcome that
   * was not, or TIMED_OUT when pasteTimeoutMsPerChunk per chunk passes first
   * (the chunks not yet applied are then withdrawn).
   */
  paste(text: string, settled?: InputSettled): { readonly op: number; readonly seqs: readonly number[] } {
    const op = this.nextOp++;
    const pieces = pastePieces(text, this.options.pasteChunkBytes);
    const timeoutMs = pieces.length * this.options.pasteTimeoutMsPerChunk;
    let waiting = pieces.length;
    let timer: unknown;
    const done = (outcome: InputOutcome) => {
      if (timer !== undefined) this.clock.clearTimeout(timer);
      timer = undefined;
      const tell = settled;
      settled = undefined;
      tell?.(outcome);
    };
    const chunkSettled: InputSettled = (outcome) => (!outcome.applied || --waiting === 0 ? done(outcome) : undefined);
    const seqs = pieces.map((piece) => this.add(piece.text, op, piece.bytes, chunkSettled));
    if (settled) {
      timer = this.clock.setTimeout(() => {
        timer = undefined;
        this.withdraw(op);
        done(notApplied('TIMED_OUT', `${pieces.length} chunk(s), ${timeoutMs} ms`));
      }, timeoutMs);
    }
    return { op, seqs };
  }

  /** Withdraws an operation's unacked chunks: each becomes an empty slot. Returns how many. */
  withdraw(op: number): number {
    let count = 0;
    for (const e of this.entries) {
      if (e.op !== op || e.withdrawn) continue;
      e.withdrawn = true;
      if (e.data.length > 0) this.retainedBytes -= e.bytes;
      e.data = '';
      count++;
    }
    return count;
  }

  /**
   * The terminal this input was meant for is gone (a new instance answered,
   * or it exited): every unacked input becomes an empty slot, so nothing held
   * for it is typed into another terminal, and numbering still continues for
   * a ledger that remembers this session. Returns how many inputs were dropped.
   */
  abandon(why: string, code: 'TERMINAL_REPLACED' | 'TERMINAL_EXITED' = 'TERMINAL_REPLACED'): number {
    const dropped: DeliveryNoticeEntry[] = [];
    for (const e of this.entries) {
      if (e.withdrawn) continue;
      if (e.data.length > 0) {
        dropped.push({ seq: e.seq, data: e.data });
        this.retainedBytes -= e.bytes;
      }
      e.withdrawn = true;
      e.data = '';
      settle(e, notApplied(code, why));
    }
    const where = code === 'TERMINAL_EXITED' ? 'typed anywhere' : 'typed into the new terminal';
    if (dropped.length > 0) this.notice(code, `${why}: ${dropped.length} input(s) not ${where} (some may have reached the old one)`, dropped);
    return dropped.length;
  }

  /**
   * A stream that negotiated inputAck is live. A ledger id other than the one
   * this journal has been talking to means the host has no record of what it
   * applied: input that may have reached the old ledger is dropped, never
   * replayed; input never sent is renumbered from 1 and sent.
   */
  attach(sink: InputSink, ledgerId: string): void {
    if (this.ledgerId !== undefined && ledgerId !== this.ledgerId) this.restartNumbering('LEDGER_CHANGED', `inputLedgerId changed from ${this.ledgerId} to ${ledgerId}`);
    this.ledgerId = ledgerId;
    this.sink = sink;
    this.resendAll();
  }

  /**
   * A stream to a host that does not sequence input is live: input that may
   * have reached a ledger is dropped (never replayed unsequenced), and the
   * never-sent rest is returned for the caller to send unsequenced.
   */
  attachUnsequenced(): string[] {
    if (this.entries.some((e) => e.sent)) this.restartNumbering('OLD_HOST', 'the new stream did not negotiate inputAck');
    const held = this.entries.filter((e) => !e.withdrawn).map((e) => e.data);
    for (const e of this.entries) settle(e, notApplied(e.withdrawn ? 'WITHDRAWN' : 'UNCONFIRMABLE'));
    this.entries = [];
    this.retainedBytes = 0;
    this.budgetGapSeq = undefined;
    this.ledgerId = undefined;
    // Input went around any ledger: numbering starts over, and the caller starts a new input
    // session, so a sequenced host met later (even the same ledger) cannot mistake seq 1 for a duplicate.
    this.acked = 0;
    this.nextSeq = 1;
    return held;
  }

  /** The stream is gone: hold everything until the next attach. */
  detach(): void {
    this.sink = undefined;
    this.clearTimer('resendTimer');
    this.clearTimer('stallTimer');
  }

  /** Drops everything (the stream is closed for good). */
  clear(): void {
    this.detach();
    for (const e of this.entries) settle(e, notApplied('CLOSED'));
    this.entries = [];
    this.retainedBytes = 0;
    this.budgetGapSeq = undefined;
  }

  /** An InputAck: `seq` is the host's cumulative appliedSeq. */
  onAck(seq: number, status: InputAckFlagStatus): void {
    if (seq >= this.nextSeq) {
      this.notice('BOGUS_ACK', `InputAck seq ${seq} but the last sequence sent is ${this.nextSeq - 1}`, []);
      return;
    }
    if (seq > this.acked) this.progress(seq, status);
    if (status === 'resend' && seq === this.acked && this.entries.length > 0) this.resendRequested();
  }

  private add(data: string, op: number | undefined, bytes = utf8Length(data), settled?: InputSettled): number {
    const seq = this.nextSeq++;
    const entry: Entry = { seq, data, bytes, op, withdrawn: false, sent: false, settled };
    if (this.budgetGapSeq === undefined && this.retainedBytes + bytes > this.options.journalBudgetBytes) {
      this.budgetGapSeq = seq;
      this.notice('BUDGET_EXCEEDED', `unacked input ${this.retainedBytes + bytes} bytes > journalBudgetBytes ${this.options.journalBudgetBytes}`, [{ seq, data }]);
    }
    this.entries.push(entry);
    this.retainedBytes += bytes;
    if (this.sink) {
      this.send(entry);
      this.armStall();
    }
    return seq;
  }

  private progress(seq: number, status: string): void {
    let i = 0;
    for (; i < this.entries.length && this.entries[i]!.seq <= seq; i++) {
      const e = this.entries[i]!;
      if (e.data.length > 0) this.retainedBytes -= e.bytes;
    }
    const done = this.entries.slice(0, i);
    this.entries = this.entries.slice(i);
    this.acked = seq;
    // Cumulative: the host applied every write up to seq, but the last one when it says it cannot tell.
    for (const e of done) {
      if (e.withdrawn) settle(e, notApplied('WITHDRAWN'));
      else if (e.budgetDropped) settle(e, notApplied('BUDGET_EXCEEDED'));
      else if (status === 'deliveryUnknown' && e.seq === seq) settle(e, notApplied('DELIVERY_UNKNOWN'));
      else settle(e, { applied: true });
    }
    if (this.entries.length === 0) this.budgetGapSeq = undefined;
    if (status === 'deliveryUnknown') {
      const last = done[done.length - 1];
      if (last?.seq === seq) this.notice('DELIVERY_UNKNOWN', `input ${seq} may or may not have reached the terminal; not resent`, [{ seq, data: last.data }]);
    }
    this.backoffMs = this.options.resendInitialDelayMs;
    this.requestsWithoutProgress = 0;
    this.escalated = false;
    this.clearTimer('stallTimer');
    this.armStall();
  }

  private resendRequested(): void {
    this.requestsWithoutProgress++;
    if (!this.escalated && this.requestsWithoutProgress >= this.options.escalateAfterResendRequests) {
      this.escalated = true;
      this.notice('PERSISTENT_REFUSAL', `${this.requestsWithoutProgress} resend requests without progress past seq ${this.acked}`, []);
    }
    if (this.resendTimer !== undefined || !this.sink) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.options.resendMaxDelayMs, this.backoffMs * 2);
    this.resendTimer = this.clock.setTimeout(() => {
      this.resendTimer = undefined;
      this.resendAll();
    }, delay);
  }

  /** Go back N: everything after appliedSeq, in order; withdrawn and budget-dropped input as empty slots. */
  private resendAll(): void {
    if (!this.sink) return;
    for (const e of this.entries) this.send(e);
    this.clearTimer('stallTimer');
    this.armStall();
  }

  private send(entry: Entry): void {
    entry.sent = true;
    this.framesSent++;
    this.sink!(entry.seq, entry.data);
    // Past a budget gap input goes out once; a resend carries an empty slot so the host can move on.
    if (this.budgetGapSeq !== undefined && entry.seq >= this.budgetGapSeq && entry.data.length > 0) {
      this.retainedBytes -= entry.bytes;
      entry.data = '';
      entry.budgetDropped = true;
    }
  }

  private armStall(): void {
    if (this.stallTimer !== undefined || !this.sink || this.entries.length === 0) return;
    this.stallTimer = this.clock.setTimeout(() => {
      this.stallTimer = undefined;
      this.resendAll();
    }, this.options.stallResendMs);
  }

  private restartNumbering(code: 'LEDGER_CHANGED' | 'OLD_HOST', why: string): void {
    const dropped: DeliveryNoticeEntry[] = [];
    const kept: Entry[] = [];
    for (const e of this.entries) {
      if (e.sent) {
        if (!e.withdrawn) dropped.push({ seq: e.seq, data: e.data });
        settle(e, notApplied(e.withdrawn ? 'WITHDRAWN' : code, why));
      } else kept.push(e);
    }
    this.acked = 0;
    this.nextSeq = 1;
    this.entries = kept;
    for (const e of kept) e.seq = this.nextSeq++;
    this.retainedBytes = kept.reduce((sum, e) => sum + (e.data.length > 0 ? e.bytes : 0), 0);
    this.budgetGapSeq = undefined;
    this.backoffMs = this.options.resendInitialDelayMs;
    this.requestsWithoutProgress = 0;
    this.clearTimer('resendTimer');
    this.clearTimer('stallTimer');
    if (dropped.length > 0) this.notice(code, `${why}: ${dropped.length} unconfirmed input(s) dropped, never replayed`, dropped);
  }

  private clearTimer(which: 'resendTimer' | 'stallTimer'): void {
    if (this[which] === undefined) return;
    this.clock.clearTimeout(this[which]);
    this[which] = undefined;
  }

  private notice(code: DeliveryNoticeCode, detail: string, entries: DeliveryNoticeEntry[]): void {
    this.events.notice({ code, message: `${code}: ${detail} (${DELIVERY_NOTICE_CODES[code]})`, entries });
  }
}

function settle(entry: Entry, outcome: InputOutcome): void {
  const settled = entry.settled;
  entry.settled = undefined;
  settled?.(outcome);
}

function notApplied(code: InputNotAppliedCode, detail?: string): InputOutcome {
  const why = code in INPUT_NOT_APPLIED_CODES ? INPUT_NOT_APPLIED_CODES[code as keyof typeof INPUT_NOT_APPLIED_CODES] : DELIVERY_NOTICE_CODES[code as DeliveryNoticeCode];
  return { applied: false, code, message: detail ? `${why} (${detail})` : why };
}
