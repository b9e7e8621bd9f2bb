import type { DeliveryOptions } from '../delivery/options.js';
import type { ClientOptions } from './options.js';

type ClientLimitName = keyof ClientOptions | `delivery.${keyof DeliveryOptions}` | `initialViewport.${'cols' | 'rows'}`;

/**
 * Client defaults a host of another version may rely on not going down, each
 * with what that host counts on. Lowering one is LIMIT_LOWERED (new client ×
 * old host) unless acknowledged. The reconnect and resend delays are here
 * because they are what keeps a fleet of clients from hammering a host.
 */
export const CLIENT_LIMIT_FLOORS = {
  reconnectInitialDelayMs: 'a host that restarts is not met by every client reconnecting at once',
  reconnectMaxDelayMs: 'a host that is down for long is retried at most this often by each client',
  maxSnapshotBytes: "a host's snapshot this large is taken, not abandoned",
  maxHeldInputBytes: 'this much typed while the link is down is kept and delivered',
  'delivery.resendInitialDelayMs': 'a resend request is answered no sooner than this',
  'delivery.stallResendMs': 'input without ack progress is resent no sooner than this',
  'delivery.journalBudgetBytes': 'this much unacknowledged input is replayed after a reconnect (exactly once)',
} satisfies Partial<Record<ClientLimitName, string>>;
