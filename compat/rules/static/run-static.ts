import type { WireManifest } from '../../../src/manifest/manifest-schema.js';
import { activeSpecs } from '../catalog.js';
import type { Finding } from '../finding.js';
import type { StaticRuleSpec } from '../rule-spec.js';

/** The static pass, in catalog order: every active static rule's spec carries its handler. */
export const STATIC_PASS: readonly StaticRuleSpec[] = activeSpecs().flatMap((r) => (r.judgedOn === 'manifests' ? [r] : []));

export function runStaticRules(baseline: WireManifest, current: WireManifest): Finding[] {
  return STATIC_PASS.flatMap((rule) => rule.run(baseline, current));
}
