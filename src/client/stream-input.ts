import { hasCapability } from '../capabilities/negotiate.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import type { InputAckStatus } from '../codec/input-ack-flags.js';
import { INPUT_NOT_APPLIED_CODES, InputJournal, type InputNotAppliedCode, type InputOutcome, type InputSettled } from '../delivery/journal.js';
import type { DeliveryNotice } from '../delivery/notices.js';
import { splitPaste, utf8Length } from '../delivery/paste.js';
import type { ClientOptions } from './options.js';

/** What a stream's input path needs from its stream. */
export interface InputOwner {
  readonly id: number;
  /** Sends one Input frame on the current link (seq 0: unsequenced). */
  sendInput(seq: number, data: string): void;
  /** A write refused because held input would pass maxHeldInputBytes. */
  refused(bytes: number, limit: number): void;
  notice(notice: DeliveryNotice): void;
}

/** A paste in flight; cancel() withdraws its chunks the host has not confirmed (and only those). */
export interface PasteHandle {
  readonly chunks: number;
  /** Returns how many chunks were withdrawn (resent as empty slots, never written). */
  cancel(): number;
  /**
   * Resolves once the host confirmed it applied every chunk; rejects with an
   * InputNotAppliedError saying why not: TIMED_OUT when it was not applied
   * within delivery.pasteTimeoutMsPerChunk per chunk (it is then withdrawn),
   * WITHDRAWN after cancel(), UNCONFIRMABLE against a host without inputAck.
   * Nobody has to listen: an unheard rejection is not an unhandled one.
   */
  readonly applied: Promise<void>;
}

/**
 * One stream's input: through the journal (exactly-once, go-back-N) while the
 * host echoes inputAck with an inputLedgerId, else today's unsequenced path.
 * Input typed while no stream is live waits in the journal either way.
 */
export class StreamInput {
  readonly journal: InputJournal;
  /** Sent in every Subscribe of this stream; the host's ledger keys on it. A new one after any unsequenced episode. */
  sessionId: string;
  private mode: 'down' | 'sequenced' | 'unsequenced' = 'down';
  /** The terminal instance this input was typed for; undefined until a host published one. */
  private instanceId: string | undefined;

  constructor(
    private readonly owner: InputOwner,
    private readonly options: ClientOptions,
  ) {
    this.sessionId = options.newInputSessionId();
    this.journal = new InputJournal(options.scheduler, { notice: (n) => owner.notice(n) }, options.delivery);
  }

  /** Whether this stream asks for sequenced input at all. */
  get advertised(): boolean {
    return hasCapability(this.options.capabilities, 'inputAck');
  }

  get sequenced(): boolean {
    return this.mode === 'sequenced';
  }

  write(data: string): boolean {
    if (this.mode === 'unsequenced') {
      this.owner.sendInput(0, data);
      return true;
    }
    if (this.mode === 'down' && !this.mayHold(utf8Length(data))) return false;
    this.journal.append(data);
    return true;
  }

  /**
   * Like write(), with the outcome: resolves once the host confirmed it
   * applied the input (its InputAck), rejects with an InputNotAppliedError
   * saying why it was not, or cannot be confirmed (a host without inputAck).
   */
  writeApplied(data: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const settled = (outcome: InputOutcome) => (outcome.applied ? resolve() : reject(new InputNotAppliedError(outcome.code, outcome.message)));
      if (this.mode === 'unsequenced') {
        this.owner.sendInput(0, data);
        return settled({ applied: false, code: 'UNCONFIRMABLE', message: INPUT_NOT_APPLIED_CODES.UNCONFIRMABLE });
      }
      if (this.mode === 'down' && !this.mayHold(utf8Length(data))) return settled({ applied: false, code: 'REFUSED', message: INPUT_NOT_APPLIED_CODES.REFUSED });
      this.journal.append(data, settled);
    });
  }

  paste(text: string): PasteHandle | undefined {
    if (this.mode === 'unsequenced') {
      const chunks = splitPaste(text, this.options.delivery.pasteChunkBytes);
      for (const chunk of chunks) this.owner.sendInput(0, chunk);
      return { chunks: chunks.length, cancel: () => 0, applied: outcomeOf({ applied: false, code: 'UNCONFIRMABLE', message: INPUT_NOT_APPLIED_CODES.UNCONFIRMABLE }) };
    }
    if (this.mode === 'down' && !this.mayHold(utf8Length(text))) return undefined;
    let settle!: InputSettled;
    const applied = outcomeOf(new Promise<InputOutcome>((resolve) => (settle = resolve)));
    const { op, seqs } = this.journal.paste(text, settle);
    return { chunks: seqs.length, cancel: () => this.journal.withdraw(op), applied };
  }

  /**
   * The host's `subscribed` echo on a new connection. A terminal instance id
   * other than the last one seen means the shell this input was typed for is
   * gone: held input is dropped and reported, never typed into the new one.
   * A host that publishes no id (0.1) keeps today's behaviour.
   */
  subscribed(echoed: CapabilitySet, ledgerId: string | undefined, instanceId?: string): void {
    if (instanceId !== undefined) {
      if (this.instanceId !== undefined && instanceId !== this.instanceId) this.journal.abandon(`terminal instance changed from ${this.instanceId} to ${instanceId}`);
      this.instanceId = instanceId;
    }
    if (hasCapability(echoed, 'inputAck') && ledgerId !== undefined) {
      this.mode = 'sequenced';
      this.journal.attach((seq, data) => this.owner.sendInput(seq, data), ledgerId);
      return;
    }
    // An old host: never resend to it; input it may have had from a newer host is dropped, not replayed.
    this.mode = 'unsequenced';
    for (const data of this.journal.attachUnsequenced()) this.owner.sendInput(0, data);
    this.sessionId = this.options.newInputSessionId();
  }

  /** The host answered a resume with the instance's exit (subscribed.resume 'exited'): what was held for it goes nowhere. */
  instanceExited(instanceId: string): void {
    this.journal.abandon(`terminal instance ${instanceId} exited while the link was down`, 'TERMINAL_EXITED');
  }

  acked(seq: number, ack: InputAckStatus): void {
    if (this.mode !== 'sequenced') return;
    // A flag this build does not know: advance and never resend, the cautious reading.
    const status = ack.status === 'unrecognized' ? 'deliveryUnknown' : ack.status;
    this.journal.onAck(seq, status);
  }

  down(): void {
    this.mode = 'down';
    this.journal.detach();
  }

  close(): void {
    this.mode = 'down';
    this.journal.clear();
  }

  private mayHold(bytes: number): boolean {
    const held = this.journal.unsentBytes;
    if (held + bytes <= this.options.maxHeldInputBytes) return true;
    this.owner.refused(held + bytes, this.options.maxHeldInputBytes);
    return false;
  }
}

/** Why an input written with writeApplied() was not applied, or cannot be confirmed; `code` is stable (INPUT_NOT_APPLIED_CODES, DELIVERY_NOTICE_CODES). */
export class InputNotAppliedError extends Error {
  override readonly name = 'InputNotAppliedError';
  constructor(
    readonly code: InputNotAppliedCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/** An outcome as a promise that rejects with an InputNotAppliedError; already handled, so a caller that never listens leaves no unhandled rejection. */
function outcomeOf(outcome: InputOutcome | Promise<InputOutcome>): Promise<void> {
  const applied = Promise.resolve(outcome).then((o) => {
    if (!o.applied) throw new InputNotAppliedError(o.code, o.message);
  });
  applied.catch(() => {});
  return applied;
}
