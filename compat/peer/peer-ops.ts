/**
 * The control ops this build's peers answer, by role. Announced in every hello
 * (peer protocol 2), so a harness decides per gate run which journey steps both
 * builds' peers can drive. The handlers in host-peer.ts and client-peer.ts are
 * typed against this table, so it cannot drift from what they answer.
 */
export const PEER_OPS = {
  host: ['emit', 'state', 'failNextWrite', 'limits', 'kill', 'emitOn'],
  client: ['subscribe', 'write', 'paste', 'cancelPaste', 'resize', 'claimViewport', 'hide', 'reveal', 'unsubscribe', 'state', 'subscribeAlso', 'writeAlso', 'unsubscribeAlso'],
} as const;

export type HostPeerOp = (typeof PEER_OPS.host)[number];
export type ClientPeerOp = (typeof PEER_OPS.client)[number];

/** How this build's host and client peers can be connected: the host peer listens on each, the client peer dials the one its URL names (tcp:// is the byte stream). */
export const PEER_TRANSPORTS = ['ws', 'stream'] as const;
export type PeerTransport = (typeof PEER_TRANSPORTS)[number];

/**
 * Arguments this build's client peer takes beyond protocol 1's:
 * `capabilities` replaces what it advertises (the gate switches one off);
 * `ackBatchBytes` sets its Ack batch (the run's flow, journey-flow.ts).
 */
export const PEER_CLIENT_ARGS = ['capabilities', 'ackBatchBytes'] as const;

/**
 * Arguments this build's host peer takes beyond protocol 1's: `detachedIdleMs`
 * sets its detached-terminal lifetime (the gate's lifetime pass), and its state
 * then says whether the journey's terminal runs and how many subscribe to it;
 * `flowLimits` sets its stream and connection windows and its stream queue
 * (the run's flow, journey-flow.ts).
 */
export const PEER_HOST_ARGS = ['detachedIdleMs', 'flowLimits'] as const;

/**
 * The roles whose peer, started with `--sessions`, serves one session after
 * another in one process: `open` (with the arguments a one-session peer takes
 * on its command line) and `close`, so a gate run starts a process per build
 * and role, not per pairing. A build without it is started once per pairing.
 */
export const PEER_SESSION_ROLES = ['host', 'client'] as const;
