import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import type { JourneyRecordingSet } from '../recording.js';
import type { SideManifests } from './dynamic/types.js';
import type { Finding } from './finding.js';

/** How to fix a finding, and where the docs explain it. */
export interface FixHint { readonly fix: string; readonly docs: string }

/** The docs most fix hints point at. */
export const FIX_DOCS = {
  threeRules: 'docs/compatibility.md#the-three-rules',
  gating: 'docs/adding-an-opcode.md#3-negotiate-then-gate-both-directions',
  register: 'docs/adding-an-opcode.md#2-register-it-one-table-each',
  protocol: 'docs/protocol.md',
} as const;

/** What a rule's handler returns: a finding before its spec stamps the pass and the rule id on it. */
export type FindingDraft = Omit<Finding, 'pass' | 'ruleId'>;

/** What the catalog, the report and acknowledgements know of a rule. A retired rule keeps only this, and its id is never reused. */
export interface RuleEntry {
  readonly id: string;
  readonly pass: 'static' | 'dynamic';
  readonly purpose: string;
  readonly compatibilityRule: 1 | 2 | 3 | null;
  /** Without one, the report falls back to the hint for the rule's compatibility rule. */
  readonly fix?: FixHint;
  readonly retired?: boolean;
}

interface About<Id extends string> {
  readonly id: Id;
  readonly compatibilityRule: 1 | 2 | 3 | null;
  readonly purpose: string;
  readonly fix?: FixHint;
}

/** A static rule: judged on the (baseline, current) manifests, by run-static. */
export interface StaticRuleSpec<Id extends string = string> extends RuleEntry {
  readonly id: Id;
  readonly pass: 'static';
  readonly judgedOn: 'manifests';
  readonly run: (baseline: WireManifest, current: WireManifest) => Finding[];
}

/** A dynamic rule judged on one journey's recordings, by run-dynamic (some also on fewer pairings, for the passes beside the script). */
export interface DynamicRuleSpec<Id extends string = string, A extends unknown[] = [JourneyRecordingSet, SideManifests]> extends RuleEntry {
  readonly id: Id;
  readonly pass: 'dynamic';
  readonly judgedOn: 'recordings';
  readonly run: (...args: A) => Finding[];
}

/**
 * A dynamic rule whose handler is wired where it is used, not here: the
 * differential codec check, behaviour over every walk of a run, and surface
 * coverage (so the catalog, read by the report, does not load the coverage measure).
 */
export interface ElsewhereRuleSpec<Id extends string = string> extends RuleEntry {
  readonly id: Id;
  readonly pass: 'dynamic';
  readonly judgedOn: 'elsewhere';
  /** Where its handler is wired. */
  readonly judgedIn: string;
}

export type RuleSpec = StaticRuleSpec | DynamicRuleSpec | ElsewhereRuleSpec;

export function staticRule<Id extends string>(spec: About<Id> & { readonly judge: (baseline: WireManifest, current: WireManifest) => FindingDraft[] }): StaticRuleSpec<Id> {
  const { judge, ...about } = spec;
  return { ...about, pass: 'static', judgedOn: 'manifests', run: (baseline, current) => judge(baseline, current).map((d) => ({ pass: 'static', ruleId: about.id, ...d })) };
}

export function dynamicRule<Id extends string, A extends unknown[] = [JourneyRecordingSet, SideManifests]>(spec: About<Id> & { readonly judge: (...args: A) => FindingDraft[] }): DynamicRuleSpec<Id, A> {
  const { judge, ...about } = spec;
  return { ...about, pass: 'dynamic', judgedOn: 'recordings', run: (...args: A) => judge(...args).map((d) => ({ pass: 'dynamic', ruleId: about.id, ...d })) };
}

export function ruleJudgedElsewhere<Id extends string>(spec: About<Id> & { readonly judgedIn: string }): ElsewhereRuleSpec<Id> {
  return { ...spec, pass: 'dynamic', judgedOn: 'elsewhere' };
}
