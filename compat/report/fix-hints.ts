import { ruleEntry } from '../rules/catalog.js';
import { FIX_DOCS, type FixHint } from '../rules/rule-spec.js';

export type { FixHint } from '../rules/rule-spec.js';

const BY_COMPATIBILITY_RULE: Record<1 | 2 | 3, FixHint> = {
  1: { fix: 'keep every new field optional for its readers', docs: FIX_DOCS.threeRules },
  2: { fix: 'gate the change behind a capability and act on it only after the echo', docs: FIX_DOCS.gating },
  3: { fix: 'gate the changed publishing like an opcode', docs: FIX_DOCS.gating },
};
const GENERIC: FixHint = { fix: 'see the compatibility rules', docs: FIX_DOCS.threeRules };

/** A rule's own hint, from its spec; a rule without one (or an id the catalog does not know) gets the hint for its compatibility rule. */
export function fixHint(ruleId: string): FixHint {
  const rule = ruleEntry(ruleId);
  return rule?.fix ?? (rule?.compatibilityRule ? BY_COMPATIBILITY_RULE[rule.compatibilityRule] : GENERIC);
}
