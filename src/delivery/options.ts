const KiB = 1024;
const MiB = 1024 * KiB;

/** Every tunable of exactly-once input, host ledger and client journal together. */
export interface DeliveryOptions {
  /** Input sessions the host ledger remembers; the least recently used is evicted past it. Default 10000. */
  readonly ledgerMaxSessions: number;
  /** First delay before answering a resend request; it doubles per request without ack progress. Default 100 ms. */
  readonly resendInitialDelayMs: number;
  /** The resend delay never grows past this. Default 8000 ms. */
  readonly resendMaxDelayMs: number;
  /** Unacked input is resent when no ack progress came for this long. Default 5000 ms. */
  readonly stallResendMs: number;
  /** Unacked input bytes the journal keeps for replay; input past it is sent once, never replayed. Default 1 MiB. */
  readonly journalBudgetBytes: number;
  /** Largest Input payload a paste is split into, in UTF-8 bytes; each chunk is its own sequence. Default 16 KiB. */
  readonly pasteChunkBytes: number;
  /** Resend requests in a row without ack progress before the journal reports a persistent refusal (once). Default 6. */
  readonly escalateAfterResendRequests: number;
  /** A paste the host has not applied this long per chunk after it was made is withdrawn (its outcome TIMED_OUT), so it cannot arrive long after its user gave up on it. Default 120000 ms. */
  readonly pasteTimeoutMsPerChunk: number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = Object.freeze({
  ledgerMaxSessions: 10_000,
  resendInitialDelayMs: 100,
  resendMaxDelayMs: 8_000,
  stallResendMs: 5_000,
  journalBudgetBytes: 1 * MiB,
  pasteChunkBytes: 16 * KiB,
  escalateAfterResendRequests: 6,
  pasteTimeoutMsPerChunk: 120_000,
});

export function resolveDeliveryOptions(input: Readonly<Partial<DeliveryOptions>> | undefined): DeliveryOptions {
  return Object.freeze({ ...DEFAULT_DELIVERY_OPTIONS, ...input });
}

/** Timers, injected: the journal runs under a test's virtual clock exactly as under the real one. */
export interface DeliveryClock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
