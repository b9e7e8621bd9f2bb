import { ruleJudgedElsewhere } from '../rules/rule-spec.js';

/**
 * The coverage rules' specs, kept apart from the measures that judge them
 * (measure.ts, behaviour.ts) so the rule catalog, which the report reads,
 * does not load those.
 */

/** SURFACE_NOT_EXERCISED: judged on each journey's recordings by coverageFindings (measure.ts), run with the dynamic rules. */
export const surfaceNotExercised = ruleJudgedElsewhere({
  id: 'SURFACE_NOT_EXERCISED',
  compatibilityRule: null,
  purpose: 'A surface entry new since the baseline crossed no wire in a pairing where it can appear, so no journey proves it works against the other version.',
  fix: { fix: 'add the journey step that puts this entry on the wire (compat/journey/surface-steps.ts)', docs: 'docs/compatibility.md#coverage-every-entry-crosses-the-wire' },
  judgedIn: 'compat/rules/dynamic/run-dynamic.ts (coverageFindings, compat/coverage/measure.ts)',
});

/** BEHAVIOUR_NOT_REACHED: judged over every walk of a run by behaviourFindings (behaviour.ts). */
export const behaviourNotReached = ruleJudgedElsewhere({
  id: 'BEHAVIOUR_NOT_REACHED',
  compatibilityRule: null,
  purpose: 'A (state, frame) pair or boundary condition of the behaviour table that both builds support was reached by no walk in a direction, and no reviewed exemption says why, so no journey proves it works against the other version.',
  fix: { fix: 'add the step that walks it (compat/journey/behaviour-steps.ts), or exempt it with its reason (compat/coverage/behaviour-exemptions.ts)', docs: 'docs/compatibility.md#behaviour-coverage' },
  judgedIn: 'compat/run-gate.ts (behaviourFindings, compat/coverage/behaviour.ts)',
});
