import { type Finding, PAIRING_LABELS } from '../finding.js';
import { FIX_DOCS, type FindingDraft, staticRule } from '../rule-spec.js';

/** CAPABILITY_REMOVED: neither new side can negotiate it any more, so both skews lose the feature. */
export const capabilityRemoved = staticRule({
  id: 'CAPABILITY_REMOVED',
  compatibilityRule: 2,
  purpose: 'A capability the baseline registered is gone, so peers that negotiate it silently lose the feature.',
  fix: { fix: 'keep the capability registered (unadvertised if retired) until no supported release negotiates it', docs: FIX_DOCS.register },
  judge: (baseline, current) =>
    Object.keys(baseline.capabilities)
      .filter((name) => !(name in current.capabilities))
      .flatMap((name) =>
        [PAIRING_LABELS.oldClientNewHost, PAIRING_LABELS.newClientOldHost].map((direction) => ({
          direction,
          subject: `capability ${name}`,
          message: `capability ${name} is gone from the registry; peers that negotiate it lose the feature`,
          evidence: { before: baseline.capabilities[name], after: null },
        }),
        ),
      ),
});

/** CAPABILITY_NO_LONGER_ADVERTISED: the reference host (or client) stopped offering what the baseline offered. */
export const capabilityNoLongerAdvertised = staticRule({
  id: 'CAPABILITY_NO_LONGER_ADVERTISED',
  compatibilityRule: 2,
  purpose: 'The reference host or client stopped advertising a capability the baseline advertised, so the echo drops it.',
  fix: { fix: 'keep advertising the capability in the defaults, or acknowledge the retirement', docs: FIX_DOCS.gating },
  judge: (baseline, current) => {
    const findings: FindingDraft[] = [];
    for (const side of ['host', 'client'] as const) {
      for (const [name, version] of Object.entries(baseline.advertised[side])) {
        if (!(name in current.capabilities)) continue; // reported as CAPABILITY_REMOVED
        const now = current.advertised[side][name];
        if (now !== undefined && now >= version) continue;
        findings.push({
          // A new host that stops advertising breaks old clients; a new client that stops, old hosts.
          direction: side === 'host' ? PAIRING_LABELS.oldClientNewHost : PAIRING_LABELS.newClientOldHost,
          subject: `capability ${name}`,
          message: `the ${side} advertised ${name}=${version} in the baseline and ${now === undefined ? 'no longer advertises it' : `advertises ${name}=${now}`}`,
          evidence: { before: { [name]: version }, after: now === undefined ? {} : { [name]: now } },
        });
      }
    }
    return findings;
  },
});
