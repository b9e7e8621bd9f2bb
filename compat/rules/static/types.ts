import type { WireManifest } from '../../../src/manifest/manifest-schema.js';
import type { Finding } from '../finding.js';

/** A static rule: a small pure function over (baseline, current) manifests. */
export type StaticRule = (baseline: WireManifest, current: WireManifest) => Finding[];

export function staticFinding(f: Omit<Finding, 'pass'>): Finding {
  return { pass: 'static', ...f };
}
