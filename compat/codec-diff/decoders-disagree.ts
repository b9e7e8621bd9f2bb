import { ruleJudgedElsewhere } from '../rules/rule-spec.js';

/** DECODERS_DISAGREE's spec, kept apart from the differential codec check (compare-decoders.ts) that judges it, so the rule catalog does not load that. */
export const decodersDisagree = ruleJudgedElsewhere({
  id: 'DECODERS_DISAGREE',
  compatibilityRule: 2,
  purpose: 'The old and the new decoder, fed the same mutated frames, disagree (one accepts what the other refuses, or they read different values) where no change to the opcode is declared.',
  fix: { fix: 'decode what the last release decodes, the same way; a stricter or looser reader is a wire change: declare it in the opcode table and gate it', docs: 'docs/compatibility.md#the-differential-codec-check' },
  judgedIn: 'compat/codec-diff/run-decoder-check.ts (compareDecoders, compat/codec-diff/compare-decoders.ts)',
});
