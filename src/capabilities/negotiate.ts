import { type CapabilityName, CAPABILITIES, type CapabilitySet } from './registry.js';

/**
 * The host's echo: every capability both sides advertise, at the version both
 * speak (the lower). Names this build does not know are never echoed.
 */
export function negotiate(clientAdvertised: CapabilitySet | undefined, hostSupported: CapabilitySet): CapabilitySet {
  const echoed: Record<string, number> = {};
  if (!clientAdvertised) return echoed;
  for (const [name, hostVersion] of Object.entries(hostSupported)) {
    const clientVersion = clientAdvertised[name];
    if (!(name in CAPABILITIES) || hostVersion === undefined || clientVersion === undefined || clientVersion < 1) continue;
    echoed[name] = Math.min(hostVersion, clientVersion);
  }
  return echoed;
}

export function hasCapability(set: CapabilitySet | undefined, name: CapabilityName): boolean {
  return (set?.[name] ?? 0) >= 1;
}
