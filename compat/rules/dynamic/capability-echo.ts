import type { CapabilitySet } from '../../../src/capabilities/registry.js';
import { PAIRING_LABELS } from '../finding.js';
import type { PairingKey } from '../../recording.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';

/** Both sides advertise it at version ≥ 1: echoed at the lower version. Names only one side knows are never echoed. */
export function expectedEcho(client: CapabilitySet, host: CapabilitySet): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, hostVersion] of Object.entries(host)) {
    const clientVersion = client[name];
    if (hostVersion === undefined || clientVersion === undefined || hostVersion < 1 || clientVersion < 1) continue;
    out[name] = Math.min(hostVersion, clientVersion);
  }
  return out;
}

function canonical(set: CapabilitySet | undefined): string {
  const entries = Object.entries(set ?? {}).filter(([, v]) => v !== undefined && v >= 1);
  return JSON.stringify(Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b))));
}

/** CAPABILITY_ECHO_MISMATCH: the echo must equal the intersection of both builds' advertised sets, read from their manifests (less a capability the link withheld). */
export const capabilityEchoMismatch = dynamicRule({
  id: 'CAPABILITY_ECHO_MISMATCH',
  compatibilityRule: 2,
  purpose: 'The negotiated capabilities differ from the intersection of what the two builds advertise in their manifests.',
  fix: { fix: 'echo exactly the intersection of what both sides advertise', docs: FIX_DOCS.gating },
  judge: (recordings, manifests) =>
    (Object.keys(PAIRING_LABELS) as PairingKey[]).flatMap((key) => {
      const rec = recordings[key];
      // A capability the link withheld reached no host, so none echoed it.
      const advertised = Object.fromEntries(Object.entries(manifests[rec.client].advertised.client).filter(([name]) => name !== rec.withheldCapability));
      const expected = expectedEcho(advertised, manifests[rec.host].advertised.host);
      if (canonical(expected) === canonical(rec.negotiated)) return [];
      return [
        {
          direction: PAIRING_LABELS[key],
          subject: 'capabilities',
          step: 'subscribe',
          message: `the client saw ${rec.negotiated === undefined ? 'no capability echo' : `echo ${canonical(rec.negotiated)}`} but the manifests' advertised sets intersect to ${canonical(expected)}`,
          evidence: { before: expected, after: rec.negotiated ?? null, advertisedInJourney: rec.advertised },
        },
      ];
    }),
});
