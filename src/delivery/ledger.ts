import type { InputAckFlagStatus } from '../codec/input-ack-flags.js';
import { DeliveryUsageError } from './notices.js';
import { DEFAULT_DELIVERY_OPTIONS, type DeliveryOptions } from './options.js';

/**
 * What a terminal write came to. 'unknown': the bytes may or may not have
 * reached the terminal (the handoff threw or was lost); resending could run a
 * command twice, so the ledger never asks for it again.
 */
export type LedgerWriteOutcome = 'written' | 'refused' | 'unknown';

/** The InputAck to send back: `seq` is always the session's cumulative appliedSeq. */
export interface LedgerReply {
  readonly seq: number;
  readonly status: InputAckFlagStatus;
  /** Whether this frame's data was handed to the terminal. */
  readonly wrote: boolean;
}

/**
 * One input session of one terminal, in one incarnation: a session evicted and
 * seen again gets a new incarnation (and so a new ledger id), exactly as if the
 * runtime had restarted, so a client never replays into a record that forgot it.
 */
export class LedgerSession {
  appliedSeq = 0;
  constructor(
    readonly key: string,
    /** The id the client sees as `inputLedgerId`: the runtime's ledger id and this incarnation. */
    readonly ledgerId: string,
  ) {}
}

/**
 * The host's go-back-N receiver: one per host runtime. Frames are judged one
 * at a time in arrival order, from any connection, by one number per session.
 * Runtime-neutral: the id comes from the caller, writes through a callback.
 */
export class InputLedger {
  private readonly sessions = new Map<string, LedgerSession>();
  private incarnations = 0;
  private readonly maxSessions: number;

  constructor(
    /** Random per runtime: a restarted runtime must never be mistaken for this one. */
    readonly id: string,
    options: Pick<DeliveryOptions, 'ledgerMaxSessions'> = DEFAULT_DELIVERY_OPTIONS,
  ) {
    this.maxSessions = options.ledgerMaxSessions;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The session a subscribing stream judges its input by; created (a new incarnation) when unknown or evicted. */
  open(terminal: string, inputSessionId: string): LedgerSession {
    const key = `${terminal}\u0000${inputSessionId}`;
    const existing = this.sessions.get(key);
    if (existing) {
      this.touch(existing);
      return existing;
    }
    const session = new LedgerSession(key, `${this.id}.${++this.incarnations}`);
    this.sessions.set(key, session);
    while (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  /**
   * The decision table. `write` is called at most once, only for the next
   * sequence, and only with non-empty data (an empty slot is a withdrawn input:
   * the session moves past it without touching the terminal).
   */
  judge(session: LedgerSession, seq: number, data: string, write: (data: string) => LedgerWriteOutcome): LedgerReply {
    if (!Number.isSafeInteger(seq) || seq < 1) throw new DeliveryUsageError('BAD_SEQ', `sequenced input needs seq >= 1, got ${seq}`);
    this.touch(session);
    if (seq <= session.appliedSeq) return { seq: session.appliedSeq, status: 'applied', wrote: false };
    if (seq > session.appliedSeq + 1) return { seq: session.appliedSeq, status: 'resend', wrote: false };
    const outcome = data.length === 0 ? 'written' : write(data);
    if (outcome === 'refused') return { seq: session.appliedSeq, status: 'resend', wrote: false };
    session.appliedSeq = seq;
    return { seq, status: outcome === 'unknown' ? 'deliveryUnknown' : 'applied', wrote: data.length > 0 };
  }

  private touch(session: LedgerSession): void {
    // Map order is insertion order: re-inserting makes it the most recently used.
    if (this.sessions.get(session.key) !== session) return; // evicted: its streams keep judging by it
    this.sessions.delete(session.key);
    this.sessions.set(session.key, session);
  }
}
