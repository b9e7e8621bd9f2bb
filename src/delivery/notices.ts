/**
 * What the journal reports to its owner when input did not, or may not, reach
 * the terminal. Codes are stable once shipped; each notice names the entries.
 */
export const DELIVERY_NOTICE_CODES = {
  DELIVERY_UNKNOWN: 'the host could not confirm the write reached the terminal; it is never resent (it may have run)',
  LEDGER_CHANGED: 'the host runtime restarted (new inputLedgerId): input it never confirmed is dropped, never replayed',
  OLD_HOST: 'the new connection does not sequence input: input sent before it is dropped, never replayed unsequenced',
  BUDGET_EXCEEDED: 'unacked input passed the retention budget: it is sent once and not replayed, nor is anything after it',
  PERSISTENT_REFUSAL: 'the host keeps asking for a resend without progress (the terminal refuses writes); reported once per episode',
  BOGUS_ACK: 'an InputAck for a sequence never sent; ignored',
  TERMINAL_REPLACED: 'the terminal is a new instance (new instanceId): input held for the old one is dropped, never typed into the new one',
  TERMINAL_EXITED: 'the terminal exited while the link was down (subscribed.resume exited): input held for it is dropped, never typed into another terminal',
} as const;

export type DeliveryNoticeCode = keyof typeof DELIVERY_NOTICE_CODES;

export interface DeliveryNoticeEntry {
  readonly seq: number;
  /** The input's text, so an application can say what may not have run. */
  readonly data: string;
}

export interface DeliveryNotice {
  readonly code: DeliveryNoticeCode;
  readonly message: string;
  readonly entries: readonly DeliveryNoticeEntry[];
}

/** A programming mistake in using the journal or ledger (not a peer's); `code` is stable. */
export class DeliveryUsageError extends Error {
  override readonly name = 'DeliveryUsageError';
  constructor(
    readonly code: 'BAD_SEQ' | 'BAD_CHUNK_SIZE',
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}
