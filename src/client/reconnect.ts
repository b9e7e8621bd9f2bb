export interface BackoffOptions {
  readonly reconnectInitialDelayMs: number;
  readonly reconnectFactor: number;
  readonly reconnectMaxDelayMs: number;
  readonly reconnectJitter: number;
  readonly random: () => number;
}

/**
 * The delay before reconnect attempt `attempt` (0 for the first): exponential,
 * capped, then spread by the jitter fraction either way (never past the cap,
 * never below zero).
 */
export function backoffDelayMs(attempt: number, opts: BackoffOptions): number {
  const base = Math.min(opts.reconnectMaxDelayMs, opts.reconnectInitialDelayMs * opts.reconnectFactor ** Math.max(0, attempt));
  const spread = base * opts.reconnectJitter * (opts.random() * 2 - 1);
  return Math.round(Math.min(opts.reconnectMaxDelayMs, Math.max(0, base + spread)));
}
