import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import type { PairingRecording } from '../recording.js';
import { type DirectionLabel, type Finding, PAIRING_LABELS } from '../rules/finding.js';
import { BEHAVIOUR_EXEMPTIONS } from './behaviour-exemptions.js';
import { behaviourNotReached } from './coverage-rules.js';
import { BEHAVIOUR_CONDITIONS, type BehaviourItem, type BehaviourWalk, declaredBehaviour } from './behaviour-table.js';
import { behaviourReached } from './behaviour-walk.js';
import { COVERAGE_PAIRINGS, type CoveragePairing, whyEntryCannotAppear } from './measure.js';

export interface BehaviourCount { readonly reached: number; readonly applicable: number; readonly exempt: number }

export interface BehaviourDirection {
  readonly direction: DirectionLabel;
  readonly pairs: BehaviourCount;
  readonly conditions: BehaviourCount;
  /** Keys of what some walk reached, what none did, and what the exemptions excuse. */
  readonly reached: readonly string[];
  readonly unreached: readonly string[];
  readonly exempt: readonly string[];
  /** What this pairing cannot carry, and why. */
  readonly notApplicable: ReadonlyArray<{ readonly key: string; readonly reason: string }>;
  /** How many of the judged items explore's seeded journeys reached this run; absent when none were walked. */
  readonly explored?: number;
  /** Reached only by explore's seeded journeys this run (not judged: a draw is no promise). */
  readonly onlyExplored: readonly string[];
  /** Not reached, and not judged: the walk that reaches them was left out of this run. */
  readonly notWalked: readonly string[];
  /** Conditions whose reach is the sender's choice (how it cuts data into frames), with whether a walk reached them: reported, never judged. */
  readonly senderPolicy: readonly string[];
}

export interface BehaviourReport {
  readonly directions: readonly BehaviourDirection[];
  /** Why what no walk reached is not judged this run at all (a step a build cannot drive, or that stalled in every walk). */
  readonly notJudged?: string;
  /** The walks left out of this run, and why: what only they reach is not judged. */
  readonly walksLeftOut?: Readonly<Partial<Record<BehaviourWalk, string>>>;
}

/** What a run did not walk: nothing is judged (`notJudged`), or only what a walk left out reaches is not. */
export interface BehaviourJudging {
  readonly notJudged?: string;
  readonly walksLeftOut?: Readonly<Partial<Record<BehaviourWalk, string>>>;
}

/** The walks of one pairing: the scripted journey first (its advertised capabilities say what the pairing supports), then every other deterministic walk. */
export type BehaviourWalks = Readonly<Record<CoveragePairing, readonly PairingRecording[]>>;

const count = (items: readonly BehaviourItem[], kind: BehaviourItem['kind'], reached: ReadonlySet<string>): BehaviourCount => {
  const of = items.filter((i) => i.kind === kind);
  const exempt = of.filter((i) => BEHAVIOUR_EXEMPTIONS[i.key] !== undefined);
  const judged = of.filter((i) => BEHAVIOUR_EXEMPTIONS[i.key] === undefined);
  return { reached: judged.filter((i) => reached.has(i.key)).length, applicable: judged.length, exempt: exempt.length };
};

function reachedBy(walks: readonly PairingRecording[]): Set<string> {
  const keys = new Set<string>();
  for (const rec of walks) {
    const r = behaviourReached(rec);
    for (const k of r.pairs) keys.add(k);
    for (const k of r.conditions) keys.add(k);
  }
  return keys;
}

/**
 * Which (state, frame) pairs and conditions of the behaviour table the walks
 * of each direction reached. An item is judged only where the pairing can
 * carry every surface entry it needs (its writer has it, its capability is
 * advertised by both).
 */
export function measureBehaviour(manifests: { old: WireManifest; new: WireManifest }, walks: BehaviourWalks, explored: Partial<BehaviourWalks> = {}, judging: BehaviourJudging = {}): BehaviourReport {
  const leftOut = (item: BehaviourItem) => item.walkedBy !== undefined && judging.walksLeftOut?.[item.walkedBy] !== undefined;
  const declared = declaredBehaviour();
  const directions = COVERAGE_PAIRINGS.flatMap((pairing): BehaviourDirection[] => {
    const [script] = walks[pairing];
    if (!script) return [];
    const cannotAppear = whyEntryCannotAppear(manifests, script, pairing);
    const notApplicable: Array<{ key: string; reason: string }> = [];
    const applicable = declared.filter((item) => {
      const reason = item.needs.map(cannotAppear).find((r) => r !== undefined);
      if (reason) notApplicable.push({ key: item.key, reason });
      return !reason;
    });
    const reached = reachedBy(walks[pairing]);
    const explore = reachedBy(explored[pairing] ?? []);
    const judged = applicable.filter((i) => !leftOut(i) && !i.senderPolicy);
    const keys = judged.map((i) => i.key);
    return [
      {
        direction: PAIRING_LABELS[pairing],
        pairs: count(judged, 'pair', reached),
        conditions: count(judged, 'condition', reached),
        reached: keys.filter((k) => reached.has(k)),
        unreached: keys.filter((k) => !reached.has(k) && BEHAVIOUR_EXEMPTIONS[k] === undefined),
        exempt: keys.filter((k) => BEHAVIOUR_EXEMPTIONS[k] !== undefined),
        notApplicable,
        ...(explored[pairing]?.length ? { explored: keys.filter((k) => explore.has(k)).length } : {}),
        onlyExplored: keys.filter((k) => !reached.has(k) && explore.has(k)),
        notWalked: applicable.filter((i) => leftOut(i) && !reached.has(i.key)).map((i) => i.key),
        senderPolicy: applicable.filter((i) => i.senderPolicy).map((i) => `${i.key}${reached.has(i.key) ? '' : ' (not reached)'}`),
      },
    ];
  });
  return { directions, ...(judging.notJudged ? { notJudged: judging.notJudged } : {}), ...(judging.walksLeftOut && Object.keys(judging.walksLeftOut).length ? { walksLeftOut: judging.walksLeftOut } : {}) };
}

const meaningOf = (key: string) => (key in BEHAVIOUR_CONDITIONS ? BEHAVIOUR_CONDITIONS[key as keyof typeof BEHAVIOUR_CONDITIONS].meaning : `the frame crossing while its stream is ${key.split(' × ')[0]}`);

/** BEHAVIOUR_NOT_REACHED: a pair or condition the pairing supports that no deterministic walk reached, and no exemption excuses. */
export function behaviourFindings(report: BehaviourReport): Finding[] {
  if (report.notJudged) return [];
  return report.directions.flatMap((d) =>
    d.unreached.map((key) => ({
      ruleId: behaviourNotReached.id,
      pass: 'dynamic' as const,
      direction: d.direction,
      subject: `behaviour ${key}`,
      message: `${key} (${meaningOf(key)}) is behaviour both builds support, and no walk reached it in ${d.direction}: add the step that walks it (compat/journey/behaviour-steps.ts), or exempt it with the reason (compat/coverage/behaviour-exemptions.ts)`,
      evidence: {},
    })),
  );
}

/** `(state, frame) pairs 31/31, conditions 23/24 (+1 exempt); explore reached 30/55`: one short line per direction. */
export function behaviourLine(d: BehaviourDirection): string {
  const part = (name: string, c: BehaviourCount) => `${name} ${c.reached}/${c.applicable}${c.exempt ? ` (+${c.exempt} exempt)` : ''}`;
  const explore = d.explored === undefined ? '' : `; explore reached ${d.explored}/${d.pairs.applicable + d.conditions.applicable}${d.onlyExplored.length ? `, ${d.onlyExplored.length} of them no other walk did` : ''}`;
  return `${part('(state, frame) pairs', d.pairs)}, ${part('conditions', d.conditions)}${explore}`;
}
