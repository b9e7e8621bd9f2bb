export const PEER_PROTOCOL_VERSION = 1;
