import { PAIRING_LABELS } from '../finding.js';
import { staticRule } from '../rule-spec.js';

/**
 * LIMIT_LOWERED: a default that a peer of another version relies on went
 * down, or stopped being promised. A host limit lowered breaks old clients
 * that stay inside the old one; a client default lowered (a reconnect delay,
 * a snapshot size) breaks what old hosts count on. Every promise the baseline
 * made is walked: one the working tree no longer lists (its row deleted, its
 * option renamed) is reported too, since nothing then holds it.
 */
export const limitLowered = staticRule({
  id: 'LIMIT_LOWERED',
  compatibilityRule: 3,
  purpose: 'A default a peer of another version relies on (a host limit its clients stay inside, a client delay its hosts count on) went down.',
  fix: { fix: 'keep the default at least where it was: peers of the last release stay inside it (raise it freely); if lowering is intended, acknowledge it and say which peers it breaks', docs: 'docs/compatibility.md#promised-limits' },
  judge: (baseline, current) => {
    if (!baseline.limits || !current.limits) return [];
    const sides = [
      ['host', PAIRING_LABELS.oldClientNewHost, 'old clients'],
      ['client', PAIRING_LABELS.newClientOldHost, 'old hosts'],
    ] as const;
    return sides.flatMap(([side, direction, who]) =>
      Object.entries(baseline.limits![side]).flatMap(([name, before]) => {
        const now = current.limits![side][name];
        if (now !== undefined && now.value >= before.value) return [];
        const message = now
          ? `the ${side} default ${name} went down from ${before.value} to ${now.value}: ${before.floor} (${before.value}) no longer holds for ${who}`
          : `the ${side} default ${name} (${before.value}) is no longer promised (its row left the limit floors, or the option was renamed): ${before.floor} no longer holds for ${who}`;
        return [({ direction, subject: `${side}.${name}`, message, evidence: { before: before.value, after: now?.value ?? null } })];
      }),
    );
  },
});
