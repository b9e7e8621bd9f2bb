/**
 * The peer protocol this build's peer entry point speaks. 2: every hello
 * announces its ops (`ops`, and the codec peer `peerOps` for both roles), and
 * the ops of PEER_OPS beyond protocol 1's.
 */
export const PEER_PROTOCOL_VERSION = 2;
