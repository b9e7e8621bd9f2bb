import { activeRules, activeSpecs } from '../catalog.js';
import type { Finding } from '../finding.js';
import type { JourneyRecordingSet } from '../../recording.js';
import type { DynamicRule, SideManifests } from './types.js';
import { coverageFindings, measureCoverage } from '../../coverage/measure.js';
import { surfaceNotExercised } from '../../coverage/coverage-rules.js';

/** Rules judged on recordings whose handler is wired here, not in their spec: the catalog, which the report reads, does not load the coverage measure. */
const WIRED_HERE: ReadonlyMap<string, DynamicRule> = new Map([[surfaceNotExercised.id, (recordings, manifests) => coverageFindings(measureCoverage(manifests, recordings))]]);

/** The dynamic pass over one journey's recordings, in catalog order. */
export const DYNAMIC_PASS: readonly { readonly id: string; readonly run: DynamicRule }[] = activeSpecs().flatMap((r) => {
  const run = r.judgedOn === 'recordings' ? r.run : WIRED_HERE.get(r.id);
  return r.pass === 'dynamic' && run ? [{ id: r.id, run }] : [];
});

/** Dynamic rules that judge something other than one journey's recordings: the differential codec check (compat/codec-diff), and behaviour over every walk of a run (compat/coverage/behaviour.ts). */
export const RULES_OUTSIDE_RECORDINGS: readonly string[] = activeRules('dynamic').map((r) => r.id).filter((id) => !DYNAMIC_PASS.some((r) => r.id === id));

export function runDynamicRules(recordings: JourneyRecordingSet, manifests: SideManifests, skip: readonly string[] = []): Finding[] {
  return DYNAMIC_PASS.flatMap(({ id, run }) => (skip.includes(id) ? [] : run(recordings, manifests)));
}
