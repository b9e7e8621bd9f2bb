import { CAPABILITIES, type CapabilitySet, type CapabilitySpec } from './registry.js';

/**
 * Every capability of a registry at version 1, but those whose row says
 * `advertised: false` (registered while the feature is unfinished, as
 * inputAck was through v0.1.0): one registry row is the whole of adding one.
 */
export function advertisedByDefault(registry: Readonly<Record<string, CapabilitySpec>>): Readonly<CapabilitySet> {
  return Object.freeze(Object.fromEntries(Object.entries(registry).filter(([, row]) => row.advertised !== false).map(([name]) => [name, 1])));
}

/**
 * What this build's reference host supports and reference client advertises,
 * from the registry. The gate reads these from each build's manifest, never
 * from its own copy. inputAck (exactly-once input) and snapshotCause are
 * advertised from the release after v0.1.0.
 */
export const DEFAULT_HOST_CAPABILITIES: Readonly<CapabilitySet> = advertisedByDefault(CAPABILITIES);
export const DEFAULT_CLIENT_CAPABILITIES: Readonly<CapabilitySet> = advertisedByDefault(CAPABILITIES);
