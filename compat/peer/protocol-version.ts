/** The peer protocol this build's peer entry point speaks; defined below the gate, beside the manifest that publishes it. */
export { PEER_PROTOCOL_VERSION } from '../../src/manifest/peer-protocol-version.js';
