import { PAIRING_LABELS } from '../finding.js';
import { type StaticRule, staticFinding } from './types.js';

/**
 * LIMIT_LOWERED: a default that a peer of another version relies on went
 * down. A host limit lowered breaks old clients that stay inside the old one;
 * a client default lowered (a reconnect delay, a snapshot size) breaks what
 * old hosts count on. Only limits both builds list are compared; which are
 * promised is the current build's reviewed table.
 */
export const limitLowered: StaticRule = (baseline, current) => {
  if (!baseline.limits || !current.limits) return [];
  const sides = [
    ['host', PAIRING_LABELS.oldClientNewHost],
    ['client', PAIRING_LABELS.newClientOldHost],
  ] as const;
  return sides.flatMap(([side, direction]) =>
    Object.entries(current.limits![side])
      .filter(([name, now]) => {
        const before = baseline.limits![side][name];
        return before !== undefined && now.value < before.value;
      })
      .map(([name, now]) => {
        const before = baseline.limits![side][name]!.value;
        return staticFinding({
          ruleId: 'LIMIT_LOWERED',
          direction,
          subject: `${side}.${name}`,
          message: `the ${side} default ${name} went down from ${before} to ${now.value}: ${now.floor} (${before}) no longer holds for ${direction === PAIRING_LABELS.oldClientNewHost ? 'old clients' : 'old hosts'}`,
          evidence: { before, after: now.value },
        });
      }),
  );
};
