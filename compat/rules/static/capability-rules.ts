import { type Finding, PAIRING_LABELS } from '../finding.js';
import { type StaticRule, staticFinding } from './types.js';

/** CAPABILITY_REMOVED: neither new side can negotiate it any more, so both skews lose the feature. */
export const capabilityRemoved: StaticRule = (baseline, current) =>
  Object.keys(baseline.capabilities)
    .filter((name) => !(name in current.capabilities))
    .flatMap((name) =>
      [PAIRING_LABELS.oldClientNewHost, PAIRING_LABELS.newClientOldHost].map((direction) =>
        staticFinding({
          ruleId: 'CAPABILITY_REMOVED',
          direction,
          subject: `capability ${name}`,
          message: `capability ${name} is gone from the registry; peers that negotiate it lose the feature`,
          evidence: { before: baseline.capabilities[name], after: null },
        }),
      ),
    );

/** CAPABILITY_NO_LONGER_ADVERTISED: the reference host (or client) stopped offering what the baseline offered. */
export const capabilityNoLongerAdvertised: StaticRule = (baseline, current) => {
  const findings: Finding[] = [];
  for (const side of ['host', 'client'] as const) {
    for (const [name, version] of Object.entries(baseline.advertised[side])) {
      if (!(name in current.capabilities)) continue; // reported as CAPABILITY_REMOVED
      const now = current.advertised[side][name];
      if (now !== undefined && now >= version) continue;
      findings.push(staticFinding({
        ruleId: 'CAPABILITY_NO_LONGER_ADVERTISED',
        // A new host that stops advertising breaks old clients; a new client that stops, old hosts.
        direction: side === 'host' ? PAIRING_LABELS.oldClientNewHost : PAIRING_LABELS.newClientOldHost,
        subject: `capability ${name}`,
        message: `the ${side} advertised ${name}=${version} in the baseline and ${now === undefined ? 'no longer advertises it' : `advertises ${name}=${now}`}`,
        evidence: { before: { [name]: version }, after: now === undefined ? {} : { [name]: now } },
      }));
    }
  }
  return findings;
};
