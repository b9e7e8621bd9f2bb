import type { SurfaceEntry, SurfaceKind, WireManifest } from '../../src/manifest/manifest-schema.js';
import { readSurface } from '../manifest/surface.js';
import type { JourneyRecordingSet, PairingKey, PairingRecording } from '../recording.js';
import { type DirectionLabel, type Finding, PAIRING_LABELS } from '../rules/finding.js';
import { surfaceNotExercised } from './coverage-rules.js';
import { exercisedKeys } from './exercised.js';
import { notExercisedReason } from './not-exercised.js';

/** The pairings coverage is judged in: both skews, and new × new for what only the working tree can send. */
export const COVERAGE_PAIRINGS = ['oldClientNewHost', 'newClientOldHost', 'newNew'] as const satisfies readonly PairingKey[];
export type CoveragePairing = (typeof COVERAGE_PAIRINGS)[number];

export const COVERAGE_KINDS = ['opcode', 'field', 'event', 'flag', 'error', 'capability'] as const satisfies readonly SurfaceKind[];

export interface KindCount { readonly exercised: number; readonly applicable: number; readonly exempt: number }

export interface UncoveredEntry {
  readonly key: string;
  readonly direction: DirectionLabel;
  /** Not in the baseline's surface: the gate fails until a journey step sends it. */
  readonly isNew: boolean;
}

export interface CoverageReport {
  readonly directions: ReadonlyArray<{ readonly direction: DirectionLabel; readonly counts: Readonly<Record<SurfaceKind, KindCount>> }>;
  /** Entries that can appear in a pairing but crossed nowhere in it; old ones are warnings. */
  readonly uncovered: readonly UncoveredEntry[];
  /** Entries a pairing cannot carry, and why (once per entry and pairing). */
  readonly notApplicable: ReadonlyArray<{ readonly key: string; readonly direction: DirectionLabel; readonly reason: string }>;
}

type Author = 'client' | 'host';
const SIDES: Record<CoveragePairing, Record<Author, 'old' | 'new'>> = {
  oldClientNewHost: { client: 'old', host: 'new' },
  newClientOldHost: { client: 'new', host: 'old' },
  newNew: { client: 'new', host: 'new' },
};

/** Who writes an entry onto the wire: capabilities are advertised by both, so either side suffices. */
const authors = (e: SurfaceEntry): Author[] => e.directions.map((d) => (d === 'hostToClient' ? 'host' : 'client'));

/** The capability an entry needs negotiated: its own name for a capability, else what gates it. */
function gateOf(e: SurfaceEntry): string | null {
  if (e.kind === 'capability') return e.key.slice('capability:'.length);
  return 'gatedBy' in e ? (e.gatedBy ?? null) : null;
}

/** Why `e` cannot appear in `rec`, or undefined when it can. */
function whyNotApplicable(e: SurfaceEntry, rec: PairingRecording, pairing: CoveragePairing, declaredBy: Record<'old' | 'new', (key: string) => boolean | 'unknown'>): string | undefined {
  const writers = authors(e).filter((a) => declaredBy[SIDES[pairing][a]](e.key) === true);
  if (!writers.length) {
    const side = SIDES[pairing][authors(e)[0]!];
    return declaredBy[side](e.key) === 'unknown' ? `the ${side} build's manifest cannot say whether it has it` : `the ${side} ${authors(e)[0]} does not have it`;
  }
  const gate = gateOf(e);
  if (gate) {
    const missing = (['client', 'host'] as const).filter((s) => !((rec.advertised[s] as Record<string, number | undefined>)[gate] ?? 0));
    if (missing.length) return `needs capability ${gate}, which the ${missing.map((s) => `${SIDES[pairing][s]} ${s}`).join(' and ')} does not advertise`;
  }
  return undefined;
}

/** Who declares a surface key: the working tree declares all of its own; the baseline what its manifest lists (or cannot tell). */
function declaredByOf(manifests: { old: WireManifest; new: WireManifest }): Record<'old' | 'new', (key: string) => boolean | 'unknown'> {
  const baseline = readSurface(manifests.old);
  const oldKeys = new Set(baseline.entries.map((e) => e.key));
  return {
    new: () => true,
    old: (key) => (oldKeys.has(key) ? true : baseline.unknownKinds.some((k) => key.startsWith(`${k}:`)) ? 'unknown' : false),
  };
}

/** Why a surface entry of the working tree cannot appear in `rec` of `pairing`, or undefined when it can; for keys the tree does not have, why not. */
export function whyEntryCannotAppear(manifests: { old: WireManifest; new: WireManifest }, rec: PairingRecording, pairing: CoveragePairing): (key: string) => string | undefined {
  const byKey = new Map(readSurface(manifests.new).entries.map((e) => [e.key, e]));
  const declaredBy = declaredByOf(manifests);
  return (key) => {
    const e = byKey.get(key);
    return e ? whyNotApplicable(e, rec, pairing, declaredBy) : `${key} is not in the working tree's surface`;
  };
}

/**
 * Which entries of the working tree's surface crossed the wire, per pairing.
 * An entry is judged only where it can appear: its writer has it, and the
 * capability that gates it is advertised by both sides.
 */
export function measureCoverage(manifests: { old: WireManifest; new: WireManifest }, recordings: JourneyRecordingSet): CoverageReport {
  const current = readSurface(manifests.new).entries;
  const declaredBy = declaredByOf(manifests);
  const directions: CoverageReport['directions'][number][] = [];
  const uncovered: UncoveredEntry[] = [];
  const notApplicable: Array<CoverageReport['notApplicable'][number]> = [];
  for (const pairing of COVERAGE_PAIRINGS) {
    const rec = recordings[pairing];
    const seen = exercisedKeys(rec);
    const direction = PAIRING_LABELS[pairing];
    const counts = Object.fromEntries(COVERAGE_KINDS.map((k) => [k, { exercised: 0, applicable: 0, exempt: 0 }])) as Record<SurfaceKind, { exercised: number; applicable: number; exempt: number }>;
    for (const e of current) {
      const reason = whyNotApplicable(e, rec, pairing, declaredBy);
      if (reason) {
        notApplicable.push({ key: e.key, direction, reason });
        continue;
      }
      const count = counts[e.kind];
      if (notExercisedReason(e.key)) {
        count.exempt++;
        continue;
      }
      count.applicable++;
      if (seen.has(e.key)) count.exercised++;
      // An entry only new × new can carry is judged there; in a skew it must cross that skew.
      else uncovered.push({ key: e.key, direction, isNew: declaredBy.old(e.key) === false });
    }
    directions.push({ direction, counts });
  }
  return { directions, uncovered, notApplicable };
}

/** SURFACE_NOT_EXERCISED: an entry new since the baseline that no journey step sends where it can appear. */
export function coverageFindings(report: CoverageReport): Finding[] {
  return report.uncovered
    .filter((u) => u.isNew)
    .map((u) => ({
      ruleId: surfaceNotExercised.id,
      pass: 'dynamic',
      direction: u.direction,
      subject: u.key,
      message: `${u.key} is new since the baseline, and no journey step sends it in ${u.direction}: add the step that exercises it (docs/adding-an-opcode.md)`,
      evidence: {},
    }));
}

/** `opcodes 18/18, fields 44/44, ...`: one line per direction. */
export function coverageLine(counts: Readonly<Record<SurfaceKind, KindCount>>): string {
  const plural: Record<SurfaceKind, string> = { opcode: 'opcodes', field: 'fields', event: 'events', flag: 'flags', error: 'error codes', capability: 'capabilities' };
  return COVERAGE_KINDS.map((k) => `${plural[k]} ${counts[k].exercised}/${counts[k].applicable}${counts[k].exempt ? ` (+${counts[k].exempt} exempt)` : ''}`).join(', ');
}
