import type { JsonLimits } from '../codec/json-limits.js';
import type { DeliveryOptions } from '../delivery/options.js';
import type { HostLimits } from './options.js';

type HostLimitName = keyof HostLimits | `json.${keyof JsonLimits}` | `delivery.${keyof DeliveryOptions}`;

/**
 * Host limits whose default a client of another version may rely on not going
 * down, each with what that client does that a lower value breaks. Lowering
 * one is LIMIT_LOWERED (old client × new host) unless acknowledged; raising
 * one is free. A limit not listed is tuning that no peer can see break.
 * `delivery.*` is the host's share of the delivery options (its input ledger).
 */
export const HOST_LIMIT_FLOORS = {
  maxStreamsPerConnection: 'a client subscribes this many streams on one connection without TOO_MANY_STREAMS',
  maxTerminals: 'a client starts terminals up to this count on a host without TERMINALS_PER_SERVER_LIMIT',
  maxTerminalsPerConnection: 'a client starts this many terminals without TERMINALS_PER_CONNECTION_LIMIT',
  maxCols: 'a client window this wide is accepted without RESIZE_TOO_LARGE',
  maxRows: 'a client window this tall is accepted without RESIZE_TOO_LARGE',
  maxScreenCells: 'a window of this many cells (with scrollback) is accepted without RESIZE_TOO_LARGE',
  maxSnapshotRequestsPerSecond: 'a client asking for snapshots this often is not closed with SNAPSHOT_RATE',
  maxErrorRepliesPerSecond: 'a client provoking this many Error replies a second is not closed with ERROR_RATE',
  rememberedClosedStreams: 'late frames on this many closed streams get NOT_SUBSCRIBED, not STREAM_NOT_OWNED',
  detachedTerminalIdleMs: 'a detached terminal is still there when its client comes back within this time',
  scrollbackLines: 'a snapshot carries this much scrollback',
  maxTitleBytes: 'a title this long arrives whole',
  maxQueuedInputBytes: 'this much input typed ahead of a busy program is written, not refused',
  streamQueueMaxBytes: 'a client this far behind catches up from the queue, without a recovery snapshot',
  linkDrainDeadlineMs: 'a client may stop reading this long before LINK_DRAIN_TIMEOUT closes it',
  linkHardBufferedBytes: 'this much may wait for a slow client before LINK_BUFFER_OVERFLOW closes it',
  'json.maxJsonBytes': 'a JSON payload this large is read, not refused',
  'json.maxJsonTokens': 'a JSON payload of this many tokens is read, not refused',
  'json.maxJsonDepth': 'a JSON payload nested this deep is read, not refused',
  'delivery.ledgerMaxSessions': "this many clients' input sessions are remembered across reconnects (exactly-once input)",
} satisfies Partial<Record<HostLimitName, string>>;
