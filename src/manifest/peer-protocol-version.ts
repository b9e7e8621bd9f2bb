/**
 * The peer protocol this build's peer entry point speaks. 2: every hello
 * announces its ops (`ops`, and the codec peer `peerOps` for both roles), and
 * the ops of PEER_OPS beyond protocol 1's.
 *
 * It lives here, below both, because the manifest publishes it and the gate's
 * peers (compat/peer/protocol-version.ts) announce it.
 */
export const PEER_PROTOCOL_VERSION = 2;
