import type { CapabilitySet } from './registry.js';

/**
 * What this build's reference host supports and reference client advertises.
 * The gate reads these from each build's manifest, never from its own copy.
 * inputAck (exactly-once input) and snapshotCause are advertised from the release after v0.1.0.
 */
export const DEFAULT_HOST_CAPABILITIES: Readonly<CapabilitySet> = Object.freeze({ ackOutput: 1, outputPause: 1, writeUnavailable: 1, inputAck: 1, snapshotCause: 1 });
export const DEFAULT_CLIENT_CAPABILITIES: Readonly<CapabilitySet> = Object.freeze({ ackOutput: 1, outputPause: 1, writeUnavailable: 1, inputAck: 1, snapshotCause: 1 });
