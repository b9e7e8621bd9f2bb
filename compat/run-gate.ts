import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CompatError, isCompatError } from './errors.js';
import { ensureWritableDir } from './writable.js';
import { cpuBooked, startCpuBooking } from './cpu-booked.js';
import { waitedChildrenCpuMs } from './journey/progress-deadline.js';
import { materialise } from './baseline/materialise.js';
import { type Baseline, resolveBaselines } from './baseline/resolve.js';
import type { AgainstSpec } from './baseline/validate-ref.js';
import { buildWorkingTree } from './baseline/build-working-tree.js';
import type { BuildInfo } from './build-info.js';
import { withBaselineLimits } from './manifest/baseline-limits.js';
import { readBuildManifest } from './manifest/read-manifest.js';
import { surfaceNotes } from './manifest/surface.js';
import { COVERAGE_PAIRINGS, type CoveragePairing, coverageLine, measureCoverage } from './coverage/measure.js';
import { surfaceNotExercised } from './coverage/coverage-rules.js';
import { behaviourFindings, type BehaviourJudging, type BehaviourWalks, measureBehaviour } from './coverage/behaviour.js';
import type { BehaviourWalk } from './coverage/behaviour-table.js';
import type { BaselineCoverage } from './report/coverage.js';
import type { ExploreJourney, ExploreOptions } from './explore/run-explore.js';
import type { Schedule } from './explore/schedule.js';
import type { JourneyRecordings } from './journey/journey-recordings.js';
import type { JourneyRecordingSet, PairingRecording } from './recording.js';
import { DEFAULT_JOURNEY_OPTIONS, type JourneyOptions } from './journey/run-pairing.js';
import { Lanes } from './journey/lanes.js';
import { disturbancesOf, JOURNEY_PASSES, type JourneyPass, pairingsOfWalk } from './journey/disturbances.js';
import { type CarriedPasses, confirmingJourney, passesToWalkAgain, type ScriptSkew, scriptSkewsToCarry } from './journey/walk-again.js';
import { DEFAULT_DECODER_CHECK, type DecoderCheckOptions } from './codec-diff/options.js';
import { walkAndConfirm } from './confirm-findings.js';
import type { ReferenceCache } from './journey/reference-cache.js';
import type { Progress, ProgressStep } from './progress.js';
import { type AcknowledgedFinding, acknowledgementReportFields, applyAcknowledgements, loadGateAcknowledgements } from './report/acknowledged.js';
import { stepRank } from './report/sort.js';
import { EXIT_CODES, type GateReport } from './report/model.js';
import { orderByRootCause } from './report/root-causes.js';
import { skippedStepNotes, stepsNotWalkedNotes } from './report/skipped-steps.js';
import { sourceLocator } from './report/source-location.js';
import { activeRules } from './rules/catalog.js';
import { runDynamicRules } from './rules/dynamic/run-dynamic.js';
import { journeyStalled } from './rules/dynamic/journey-outcome-rules.js';
import { judgePass, PASSES, passSpec, wireSubject } from './journey/passes.js';
import { standingIn } from './report/root-causes.js';
import { type Finding, PAIRING_LABELS } from './rules/finding.js';
import { runStaticRules } from './rules/static/run-static.js';
import { type Shard, type ShardUnits, shardUnits } from './shard.js';
import type { CapabilitiesOffMode } from './explore/capabilities-off.js';

export interface GateOptions {
  readonly root: string;
  readonly against: AgainstSpec;
  readonly includePrerelease: boolean;
  readonly staticOnly: boolean;
  /** Seeded explore journeys after the scripted one; absent or count 0 runs none. */
  readonly explore?: ExploreOptions;
  /** The differential codec check: how many mutated frames, from which seed. Default DEFAULT_DECODER_CHECK; frames 0 runs none. */
  readonly decoderCheck?: DecoderCheckOptions;
  /** `--capabilities-off`: `each` (default) walks one journey per optional capability with the link withholding it; `none` skips them. */
  readonly capabilitiesOff?: CapabilitiesOffMode;
  /** `--replay`: walk only the explore schedule given in `explore.schedules` (no scripted journey, no decoder check). */
  readonly replay?: boolean;
  /** `--passes`: the journey passes to walk (the script always among them); every pass when absent. */
  readonly passes?: ReadonlySet<JourneyPass>;
  /** `--shard i/n`: walk only this shard's units (compat/shard.ts); `termwire compat merge` joins the shards' reports. */
  readonly shard?: Shard;
  /** Default: <root>/.termwire/compat */
  readonly cacheDir?: string;
  /** The acknowledged breaks to apply. Default: <root>/compat/acknowledged-breaks.json; CI passes the base branch's copy. */
  readonly acknowledgements?: string;
  /** Today, for acknowledgement expiry. Default: the system clock. */
  readonly now?: () => Date;
  readonly progress: Progress;
}

const cacheDirOf = (opts: GateOptions) => opts.cacheDir ?? join(opts.root, '.termwire', 'compat');

/** The gate compares a termwire checkout with its own releases; anywhere else it has nothing to build. */
function assertTermwireProject(root: string): void {
  const path = join(root, 'package.json');
  let pkg: { name?: string; bin?: unknown } | undefined;
  try {
    pkg = JSON.parse(readFileSync(path, 'utf8')) as typeof pkg;
  } catch {
    pkg = undefined;
  }
  const bin = typeof pkg?.bin === 'object' && pkg.bin !== null && 'termwire' in pkg.bin;
  if (pkg?.name !== 'termwire' && !bin) {
    throw new CompatError('NOT_A_TERMWIRE_PROJECT', `${root} is not a termwire checkout (${existsSync(path) ? 'its package.json names neither the termwire package nor a termwire command' : 'it has no package.json'}); run termwire compat from a clone of termwire`);
  }
}

/** What a gate run gathers besides its failing findings, baseline by baseline. */
interface Gathered {
  readonly notes: string[];
  readonly coverage: BaselineCoverage[];
  readonly schedules: string[];
  /** Findings one walk saw and the confirming walk did not. */
  readonly notReproduced: Finding[];
  /** The baselines whose journeys were walked: the dynamic rules ran against these only. */
  readonly walked: string[];
}

/** The explore journeys a shard walks against one baseline: its seeds' schedules, as a whole run would draw them. */
async function shardExplore(seeds: readonly number[]): Promise<ExploreOptions | undefined> {
  if (!seeds.length) return undefined;
  const { drawSchedule } = await import('./explore/schedule.js');
  return { count: seeds.length, seed: seeds[0]!, schedules: seeds.map((seed) => drawSchedule(seed)) };
}

async function compareAgainst(current: BuildInfo, baseline: Baseline, opts: GateOptions, matrix: boolean, gathered: Gathered, units: ShardUnits | undefined): Promise<Finding[]> {
  const script = units?.script ?? true;
  const explore = units ? await shardExplore(units.exploreSeeds) : opts.explore;
  if (!script && !explore) return [];
  const built = await materialise({
    repo: opts.root,
    commit: baseline.commit,
    cacheDir: cacheDirOf(opts),
    reuseDependenciesFrom: opts.root,
    progress: opts.progress,
  });
  const limited = await withBaselineLimits(await readBuildManifest(built.dir), built.dir, current.manifest);
  const old: BuildInfo = { dir: built.dir, version: baseline.version ?? 'unknown', commit: baseline.commit, manifest: limited.manifest };
  const tag = (f: Finding): Finding => (matrix ? { ...f, baseline: baseline.label } : f);
  const noteOf = (note: string) => (matrix ? `${baseline.label}: ${note}` : note);
  const references = { dir: cacheDirOf(opts), baselineCommit: baseline.commit };
  const unchanged = opts.staticOnly ? undefined : await nothingCanDiffer(old, current);
  if (unchanged) {
    opts.progress.note(noteOf(unchanged));
    gathered.notes.push(noteOf(unchanged));
  } else if (!opts.staticOnly) gathered.walked.push(baseline.label);
  // A shard without this baseline's script walks only its explore seeds; the script's shard says the rest.
  if (!script) return unchanged ? [] : (await exploreAgainst(old, current, explore!, opts, baseline.label, gathered, references, [])).map(tag);
  if (limited.note) gathered.notes.push(noteOf(limited.note));

  const staticStep = opts.progress.step(`static rules against ${baseline.label}`);
  const findings = runStaticRules(old.manifest, current.manifest).map(tag);
  staticStep.found(findings.length);
  gathered.notes.push(...surfaceNotes(old.manifest, current.manifest).map(noteOf));
  if (opts.staticOnly || unchanged) return findings;
  // A replay walks its one schedule and nothing else, so what it shows is that schedule's.
  if (opts.replay) return [...findings, ...(await exploreAgainst(old, current, opts.explore!, opts, baseline.label, gathered, references, findings)).map(tag)];

  // The capability-off journeys queue in the same lanes as the first walk of the journeys, and fill what it leaves idle
  // near its end; what they find is judged once the journeys' and decoders' findings stand.
  const firstLanes = new Lanes(DEFAULT_JOURNEY_OPTIONS.concurrentPairings);
  const judged = journeysAndDecoders(old, current, opts, { label: baseline.label, tag, noteOf }, gathered, references, findings, firstLanes);
  const capabilityOffWalks: JourneyRecordingSet[] = [];
  const exploreWalks: JourneyRecordingSet[] = [];
  const standingThen = judged.then((j) => [...findings, ...j.dynamic, ...j.decoders.map(tag)]);
  standingThen.catch(() => undefined); // the journeys' failure is thrown below, whether or not anything awaits this
  const withoutEachWalked = (opts.capabilitiesOff ?? 'each') === 'each' ? capabilitiesOffAgainst(old, current, opts, baseline.label, gathered, references, standingThen, capabilityOffWalks, firstLanes) : Promise.resolve([]);
  // Neither is left running when the other fails: the caller tears down the peers both use.
  const [journeysSettled, withoutEachSettled] = await Promise.allSettled([judged, withoutEachWalked]);
  if (journeysSettled.status === 'rejected') throw journeysSettled.reason;
  if (withoutEachSettled.status === 'rejected') throw withoutEachSettled.reason;
  const { dynamic, decoders, walked, recordings } = journeysSettled.value;
  const withoutEach = withoutEachSettled.value;
  const standing = [...findings, ...dynamic, ...decoders.map(tag)];
  const manifests = { old: old.manifest, new: current.manifest };
  const explored = explore?.count ? await exploreAgainst(old, current, explore, opts, baseline.label, gathered, references, [...standing, ...withoutEach.map(tag)], 'drawn', exploreWalks) : [];
  const behaviour = measureBehaviour(manifests, behaviourWalksOf([...walked, ...capabilityOffWalks]), behaviourWalksOf(exploreWalks), behaviourJudging(walked, opts, recordings));
  // Coverage is what a walk showed: a walk a busy machine disturbed did not walk the journey it describes.
  const steady = walked.find((w) => !disturbancesOf(pairingsOfWalk(w)).length) ?? recordings;
  gathered.coverage.push({ baseline: baseline.label, ...measureCoverage(manifests, steady), undrivableSteps: recordings.undrivable.flatMap((u) => u.steps), behaviour });
  return [...findings, ...dynamic, ...decoders.map(tag), ...withoutEach.map(tag), ...explored.map(tag), ...behaviourFindings(behaviour).map(tag)];
}

/** What the journeys and the decoder check find against one baseline: the first walk, confirmed; the decoders read its frames. */
interface JourneysJudged {
  readonly dynamic: Finding[];
  readonly decoders: Finding[];
  /** Every walk: the first, and any that confirmed it. */
  readonly walked: JourneyRecordings[];
  /** The first walk's recordings. */
  readonly recordings: JourneyRecordings;
}

/** A baseline as its findings and notes name it: in a matrix, each carries its label. */
interface BaselineNaming {
  readonly label: string;
  readonly tag: (f: Finding) => Finding;
  readonly noteOf: (note: string) => string;
}

async function journeysAndDecoders(old: BuildInfo, current: BuildInfo, opts: GateOptions, { label, tag, noteOf }: BaselineNaming, gathered: Gathered, references: ReferenceCache, findings: readonly Finding[], firstLanes: Lanes): Promise<JourneysJudged> {
  const journeys = opts.progress.step(`journeys against ${label}`);
  // Loaded lazily: the journey runner pulls in peers and sockets the static pass never needs.
  const { runJourneyPairings } = await import('./journey/run.js');
  const manifests = { old: old.manifest, new: current.manifest };
  const findingsByPass = (r: JourneyRecordings): Record<JourneyPass, Finding[]> => ({
    script: runDynamicRules(r, manifests),
    ...(Object.fromEntries(PASSES.map((spec) => [spec.name, r[spec.name] ? judgePass(spec, r[spec.name]!) : []])) as Record<Exclude<JourneyPass, 'script'>, Finding[]>),
  });
  const judge = (r: JourneyRecordings) => Object.values(findingsByPass(r)).flat().map(tag);
  const walk = (lanes: Lanes, cache: ReferenceCache, carry?: CarriedPasses, confirming: Partial<JourneyOptions> = {}) =>
    runJourneyPairings({ old, new: current }, { onProgress: (msg) => journeys.update(msg), journey: inLanesOf(lanes, confirming), references: cache, ...(carry ? { carry } : {}), ...(opts.passes ? { passes: opts.passes } : {}) });
  const walked: JourneyRecordings[] = [];
  const remembered = (r: JourneyRecordings) => (walked.push(r), r);
  const { first: recordings, confirmed: dynamic, notReproduced, disturbed } = await walkAndConfirm(
    {
      first: async () => remembered(await walkWithRetry((lanes) => walk(lanes, references), journeys, firstLanes)),
      // A fresh reference too: a reference that a busy machine disturbed would condemn a healthy skew.
      again: async () => {
        const again = passesToWalkAgain(walked, findingsByPass);
        const scriptSkews = again.has('script') ? scriptSkewsToCarry(walked, (r) => findingsByPass(r).script) : new Set<ScriptSkew>();
        const carry = { from: walked[0]!, passes: new Set(JOURNEY_PASSES.filter((p) => !again.has(p))), scriptSkews };
        const standing = [...carry.passes, ...[...scriptSkews].map((skew) => `the script's ${PAIRING_LABELS[skew]}`)];
        journeys.update(`walking again the pass(es) where a walk found something or was disturbed (${[...again].join(', ')}), one pairing at a time, with fresh references${standing.length ? `; ${standing.join(', ')} stand from the first walk` : ''}`);
        // Nothing of this run walks beside a confirming walk: the walks that shared the first walk's lanes finish first.
        await firstLanes.idle();
        const confirming = confirmingJourney(walked.map(pairingsOfWalk));
        if (confirming.clientPongDeadlineMs) journeys.update(`a walk was disturbed: its clients wait ${confirming.clientPongDeadlineMs} ms for a pong this time`);
        return remembered(await walkWithRetry((lanes) => walk(lanes, { ...references, refresh: true }, carry, confirming), journeys, oneAtATime()));
      },
    },
    judge,
    (found, why) => journeys.update(`${found.length} finding(s); walking again ${why}`),
    (r) => disturbancesOf(pairingsOfWalk(r)),
    standingIn(findings),
  ).catch((e: unknown) => {
    journeys.fail();
    throw e;
  });
  gathered.notReproduced.push(...notReproduced);
  gathered.notes.push(...disturbed.map((d) => noteOf(`journeys ${d}; no walk's verdict stood alone`)));
  gathered.notes.push(...skippedStepNotes(label, recordings.undrivable).map(noteOf));
  if (recordings.sameCode) gathered.notes.push(noteOf(`journeys: ${recordings.sameCode}`));
  const leftOut = JOURNEY_PASSES.filter((p) => opts.passes && !opts.passes.has(p));
  if (leftOut.length) gathered.notes.push(noteOf(`journeys: the ${leftOut.join(', ')} pass${leftOut.length > 1 ? 'es were' : ' was'} not walked: --passes ${[...opts.passes!].join(',')}; a break only ${leftOut.length > 1 ? 'they' : 'it'} would show is not judged`));
  for (const [pass, why] of Object.entries(recordings.unwalked ?? {})) gathered.notes.push(noteOf(`the ${passSpec(pass as Exclude<JourneyPass, 'script'>).label} pass was not walked against ${label}: ${why}`));
  gathered.notes.push(...stepsNotWalkedNotes(pairingsOfWalk(recordings)).map(noteOf));
  journeys.found(dynamic.length);
  const decoders = await checkDecoders(old, current, recordings, opts, label, gathered, new Set(findings.map((f) => f.subject.split('.')[0]!)));
  return { dynamic, decoders, walked, recordings };
}

/** Every recording of each coverage pairing in these walks: the script's and each pass's (pty, restart, byte stream, lifetime). */
function behaviourWalksOf(sets: ReadonlyArray<JourneyRecordings | JourneyRecordingSet>): BehaviourWalks {
  const of = (pairing: CoveragePairing) =>
    sets.flatMap((set) => {
      const passes = set as Partial<JourneyRecordings>;
      const pty = passes.pty as Partial<Record<CoveragePairing, PairingRecording>> | undefined;
      return [set[pairing], pty?.[pairing], passes.restart?.[pairing], passes.stream?.[pairing], passes.lifetime?.[pairing]].filter((r): r is PairingRecording => r !== undefined);
    });
  return Object.fromEntries(COVERAGE_PAIRINGS.map((p) => [p, of(p)])) as unknown as BehaviourWalks;
}

/** What this run walked of what behaviour coverage judges: a walk left out is named, and so is a reason to judge nothing. */
function behaviourJudging(walked: readonly JourneyRecordings[], opts: GateOptions, recordings: JourneyRecordings): BehaviourJudging {
  const walksLeftOut: Partial<Record<BehaviourWalk, string>> = {};
  for (const pass of ['restart', 'lifetime'] as const) {
    if (opts.passes && !opts.passes.has(pass)) walksLeftOut[pass] = `--passes left out ${pass}`;
    else if (recordings.unwalked?.[pass]) walksLeftOut[pass] = `the ${pass} pass was not walked: ${recordings.unwalked[pass]}`;
  }
  if ((opts.capabilitiesOff ?? 'each') === 'none') walksLeftOut.capabilityOff = '--capabilities-off none';
  const undrivable = recordings.undrivable.flatMap((u) => u.steps);
  const notJudged = undrivable.length ? `a build's peers cannot drive ${undrivable.join(', ')}` : walked.every((w) => w.newNew.steps.some((s) => s.status === 'stalled')) ? 'a step stalled in every walk' : undefined;
  return { walksLeftOut, ...(notJudged ? { notJudged } : {}) };
}

/**
 * Why nothing is walked against this baseline, when the working tree's peers
 * run the release's code in every role: the client's and the host's modules
 * (each with the codec peer that decodes for it), the peer entry, the package
 * and its lockfile are identical (journey/same-code.ts), so no journey, decoder
 * check, capability-off journey or explore seed can tell the builds apart.
 * Undefined when some role's code differs.
 */
async function nothingCanDiffer(old: BuildInfo, current: BuildInfo): Promise<string | undefined> {
  const { sameCode } = await import('./journey/same-code.js');
  const same = sameCode(old.dir, current.dir);
  if (!same.client || !same.host) return undefined;
  return "nothing walked: the working tree's peers run the release's code in every role (client, host and the codec peer: their compiled modules, the peer entry, package.json and the lockfile are identical), so no journey, decoder check, capability-off journey or explore seed could differ";
}

/** One journey per optional capability both builds negotiate, with that one withheld by the link (explore/capabilities-off.ts). */
async function capabilitiesOffAgainst(old: BuildInfo, current: BuildInfo, opts: GateOptions, label: string, gathered: Gathered, references: ReferenceCache, standing: Promise<readonly Finding[]>, walks: JourneyRecordingSet[], lanes: Lanes): Promise<Finding[]> {
  const { capabilityOffSchedules, switchableCapabilities } = await import('./explore/capabilities-off.js');
  const schedules = capabilityOffSchedules(switchableCapabilities([old.manifest.advertised, current.manifest.advertised]));
  if (!schedules.length) return [];
  return exploreAgainst(old, current, { count: schedules.length, seed: 0, schedules, capabilityOffPass: true }, opts, label, gathered, references, standing, 'capabilityOff', walks, lanes);
}

/** Decoders are pure: what they disagree on does not depend on load, so nothing here is walked twice. */
async function checkDecoders(old: BuildInfo, current: BuildInfo, recordings: JourneyRecordings, opts: GateOptions, label: string, gathered: Gathered, judgedStatically: ReadonlySet<string>): Promise<Finding[]> {
  const check = opts.decoderCheck ?? DEFAULT_DECODER_CHECK;
  if (check.frames === 0) return [];
  const { sameDecoders } = await import('./journey/same-code.js');
  if (sameDecoders(old.dir, current.dir)) {
    gathered.notes.push(`${label}: the decoder check was not run: both builds' codec peers run the same code (their compiled modules, package.json and lockfile are identical), so their decoders read every frame alike`);
    return [];
  }
  const step = opts.progress.step(`decoders against ${label}: ${check.frames} mutated frames (seed ${check.seed})`);
  const [{ runDecoderCheck }, { KeptVerdicts }] = await Promise.all([import('./codec-diff/run-decoder-check.js'), import('./codec-diff/kept-verdicts.js')]);
  // The old build's verdicts are kept between runs: its code never changes under its cache entry.
  const oldKept = KeptVerdicts.open(cacheDirOf(opts), `${old.commit} ${basename(old.dir)}`);
  const result = await runDecoderCheck({ old, new: current }, recordings, check, judgedStatically, step, oldKept).catch((e: unknown) => {
    step.fail();
    throw e;
  });
  oldKept.save();
  gathered.notes.push(`${label}: both decoders read ${result.frames} mutated frames (seed ${check.seed}${result.repeated ? `; ${result.repeated} of them drawn again byte for byte, read once` : ''}${result.oldKept ? `; the old decoder's verdicts on ${result.oldKept} were kept from an earlier run` : ''}); ${result.declared} more were left to the static rules, which judge their opcode's change${result.eventsUncompared ? `; ${result.eventsUncompared} refused as malformed events by one build's peer only, since the other's peer does not check events, were not compared` : ''}`);
  step.found(result.findings.length);
  return result.findings;
}

/** One pairing at a time: the confirming walks, whose guarantee against a busy machine is that nothing runs beside them. */
const oneAtATime = () => new Lanes(1);

/** Journey options that walk in these lanes. */
const inLanesOf = (lanes: Lanes, options: Partial<JourneyOptions> = {}): Partial<JourneyOptions> => ({ ...options, sharedLanes: lanes });

/**
 * A walk whose peers did not start (PEER_UNAVAILABLE) is walked once more, one
 * pairing at a time, before the gate says it could not compare: a start that a
 * busy machine delayed past a deadline is not a broken build.
 */
async function walkWithRetry<T>(walk: (lanes: Lanes) => Promise<T>, step: ProgressStep, lanes: Lanes): Promise<T> {
  try {
    return await walk(lanes);
  } catch (e) {
    if (!isCompatError(e) || e.code !== 'PEER_UNAVAILABLE') throw e;
    step.update(`a peer did not start (${e.message.split('\n')[0]}); walking once more, one pairing at a time`);
    return walk(oneAtATime());
  }
}

/** The moves of a drawn schedule that a build's peers cannot drive, which every pairing skipped: said beside the schedule. */
function undrivableMovesNote(j: ExploreJourney): string {
  const skipped = new Set(j.recordings.newNew.steps.filter((s) => s.status === 'skipped' && s.reason?.includes(" cannot '")).map((s) => s.name));
  return skipped.size ? ` (skipped, a build's peers cannot drive them: ${[...skipped].join(', ')})` : '';
}

/**
 * Seeded explore journeys, judged by the same dynamic rules as the scripted
 * one; coverage is the script's promise, so it is not judged here. A seed that
 * found something is replayed once, with fresh references, to confirm it.
 */
const EXPLORE_SKIPS_RULES = [surfaceNotExercised.id];

async function exploreAgainst(
  old: BuildInfo,
  current: BuildInfo,
  explore: ExploreOptions,
  opts: GateOptions,
  label: string,
  gathered: Gathered,
  references: ReferenceCache,
  /**
   * Findings that already stand (static, and confirmed by earlier walks): a seed that only repeats them is not walked
   * again nor shrunk. The first walk starts at once; they are awaited before it is judged.
   */
  standing: readonly Finding[] | Promise<readonly Finding[]>,
  kind: 'drawn' | 'capabilityOff' = 'drawn',
  /** Where the first walk's recordings go, for behaviour coverage. */
  walks: JourneyRecordingSet[] = [],
  /** The lanes the first walk queues in, shared with walks beside it; lanes of its own otherwise. */
  firstLanes: Lanes = new Lanes(DEFAULT_JOURNEY_OPTIONS.concurrentPairings),
): Promise<Finding[]> {
  const { progress } = opts;
  const capabilityOff = kind === 'capabilityOff';
  const step = progress.step(capabilityOff ? `capabilities off, one at a time, against ${label}: ${explore.count} journey(s)` : `explore ${explore.count} journey(s) from seed ${explore.seed} against ${label}`);
  const { runExplore } = await import('./explore/run-explore.js');
  const { describeSchedule } = await import('./explore/schedule.js');
  const manifests = { old: old.manifest, new: current.manifest };
  const judge = (journeys: ExploreJourney[]) =>
    journeys.flatMap((j) => runDynamicRules(j.recordings, manifests, EXPLORE_SKIPS_RULES).map((f) => ({ ...f, explore: { seed: j.schedule.seed, moves: j.schedule.moves, ...(capabilityOff ? { capabilityOff: true as const } : {}) } })));
  let firstWalk: ExploreJourney[] = [];
  /** The confirming walks so far: a third walk is patient where the second was disturbed. */
  const replayedSoFar: ExploreJourney[] = [];
  const walk = (options: ExploreOptions, lanes: Lanes, cache: ReferenceCache, confirming: Partial<JourneyOptions> = {}) =>
    runExplore({ old, new: current }, options, { onProgress: (msg) => step.update(msg), journey: inLanesOf(lanes, confirming), references: cache });
  try {
    const firstWalkStarted = walkWithRetry((lanes) => walk(explore, lanes, references), step, firstLanes).then((j) => (firstWalk = j));
    // Both settle before either is read: a failure of one never leaves the other's walk running.
    const [standingSettled] = await Promise.allSettled([standing, firstWalkStarted]);
    if (standingSettled.status === 'rejected') throw standingSettled.reason;
    const stands = standingIn(standingSettled.value);
    const { first: journeys, confirmed, notReproduced, disturbed } = await walkAndConfirm(
      {
        first: () => firstWalkStarted,
        again: async (found) => {
          const replayed: ExploreJourney[] = [];
          // The schedule as walked (drawn, or given by --replay), not redrawn from its seed.
          const scheduleOfSeed = (seed: number) => firstWalk.find((j) => j.schedule.seed === seed)!.schedule;
          // Seeds that found something, and seeds whose first walk was disturbed: a disturbed walk's silence is no verdict.
          const disturbedSeeds = firstWalk.filter((j) => disturbancesOf(Object.values(j.recordings)).length).map((j) => j.schedule.seed);
          const confirming = confirmingJourney([...firstWalk, ...replayedSoFar].map((j) => Object.values(j.recordings)));
          for (const seed of new Set([...found.map((f) => f.explore!.seed), ...disturbedSeeds])) replayed.push(...(await walkWithRetry((lanes) => walk({ count: 1, seed, schedules: [scheduleOfSeed(seed)] }, lanes, { ...references, refresh: true }, confirming), step, oneAtATime())));
          replayedSoFar.push(...replayed);
          return replayed;
        },
      },
      judge,
      (found, why) => step.update(`${found.length ? `${found.length} finding(s) in seed(s) ${[...new Set(found.map((f) => f.explore!.seed))].join(', ')}` : 'no finding'}; replaying seeds one pairing at a time, ${why}`),
      (walked) => walked.flatMap((j) => disturbancesOf(Object.values(j.recordings)).map((d) => `seed ${j.schedule.seed}: ${d}`)),
      stands,
    );
    walks.push(...journeys.map((j) => j.recordings));
    if (capabilityOff && !journeys.length) {
      gathered.notes.push(`${label}: the journeys with one capability off were not walked: no optional capability is advertised by both builds' clients and supported by both hosts`);
      step.done('not walked: no optional capability both builds negotiate');
      return [];
    }
    if (!capabilityOff) gathered.schedules.push(...journeys.map((j) => `${describeSchedule(j.schedule)}${undrivableMovesNote(j)}`));
    gathered.notReproduced.push(...notReproduced);
    gathered.notes.push(...disturbed.map((d) => `${label}: ${capabilityOff ? 'journeys with one capability off' : 'explore'} ${d}; no walk's verdict stood alone`));
    // A replayed schedule is already the shrunk one: it is not shrunk again, nor its file rewritten.
    const findings = opts.replay ? confirmed : await shrinkFailing(confirmed, stands(confirmed), journeys, { old, current, label, step, judge, walk: (schedule) => walk({ count: 1, seed: schedule.seed, schedules: [schedule] }, oneAtATime(), references), replayDir: join(cacheDirOf(opts), 'replays'), fileStem: (sch) => (capabilityOff ? sch.moves[0]!.replace(':', '-') : `seed-${sch.seed}`) });
    if (findings.length) step.fail(`${findings.length} finding(s) in ${new Set(findings.map((f) => f.explore!.seed)).size} ${capabilityOff ? 'journey(s)' : 'seed(s)'}`);
    else step.done(capabilityOff ? `${journeys.map((j) => j.schedule.moves[0]).join(', ')}: no finding` : `${journeys.length} schedule(s), no finding`);
    return findings;
  } catch (e) {
    step.fail();
    throw e;
  }
}

/**
 * Each failing schedule is shrunk to a shorter one that still shows its first
 * finding (same rule, direction and subject), and written as a replay file
 * that `--replay FILE` walks as it is; the findings name both schedules.
 */
async function shrinkFailing(
  findings: Finding[],
  standing: ReadonlySet<Finding>,
  journeys: readonly ExploreJourney[],
  ctx: { old: BuildInfo; current: BuildInfo; label: string; step: ProgressStep; judge: (j: ExploreJourney[]) => Finding[]; walk: (s: Schedule) => Promise<ExploreJourney[]>; replayDir: string; fileStem: (s: Schedule) => string },
): Promise<Finding[]> {
  const { shrinkSchedule } = await import('./explore/shrink.js');
  const { writeReplayFile } = await import('./explore/replay-file.js');
  const shrunk = new Map<number, { moves: readonly string[]; replayFile: string }>();
  for (const target of representatives(findings.filter((f) => !standing.has(f)))) {
    const seed = target.explore!.seed;
    const journey = journeys.find((j) => j.schedule.seed === seed);
    if (!journey) continue;
    const same = (f: Finding) => f.ruleId === target.ruleId && f.direction === target.direction && f.subject === target.subject;
    ctx.step.update(`seed ${seed}: shrinking its ${journey.schedule.moves.length} moves to the fewest that still show ${target.ruleId}`);
    // A walk that cannot run while shrinking keeps its move: the finding stands, confirmed, whatever the shrink manages.
    const { schedule } = await shrinkSchedule(journey.schedule, async (candidate) => ctx.judge(await ctx.walk(candidate)).some(same)).catch(() => ({ schedule: journey.schedule }));
    const replayFile = join(ctx.replayDir, `${ctx.label.replace(/[^\w.-]+/g, '_')}-${ctx.fileStem(journey.schedule)}.json`);
    writeReplayFile(replayFile, {
      format: 1,
      seed,
      moves: [...schedule.moves],
      finding: { ruleId: target.ruleId, direction: target.direction, subject: target.subject },
      builds: { old: { version: ctx.old.version, commit: ctx.old.commit }, new: { version: ctx.current.version, commit: ctx.current.commit } },
    });
    shrunk.set(seed, { moves: schedule.moves, replayFile });
  }
  return findings.map((f) => (shrunk.has(f.explore!.seed) ? { ...f, explore: { ...f.explore!, shrunk: shrunk.get(f.explore!.seed)!.moves, replayFile: shrunk.get(f.explore!.seed)!.replayFile } } : f));
}

/**
 * One finding per root cause among explore findings, to shrink: the first
 * finding of each seed, once per cause (rule, direction and wire subject) that
 * no earlier seed's first finding already names. Shrinking is a walk per
 * candidate schedule; a second schedule for the same cause says nothing new.
 */
export function representatives(findings: readonly Finding[]): Finding[] {
  const seeds = new Set<number>();
  const causes = new Set<string>();
  const kept: Finding[] = [];
  for (const f of findings) {
    if (seeds.has(f.explore!.seed)) continue;
    seeds.add(f.explore!.seed);
    const cause = JSON.stringify([f.ruleId, f.direction, wireSubject(f.subject)]);
    if (causes.has(cause)) continue;
    causes.add(cause);
    kept.push(f);
  }
  return kept;
}

/**
 * The directions an acknowledged break stops: an acknowledged stall of the
 * scripted journey means nothing past its step was walked there. Each names the
 * earliest such step and the share of the direction's surface no walk reached.
 */
export function blindSpotsOf(acknowledged: readonly AcknowledgedFinding[], coverage: readonly BaselineCoverage[]): NonNullable<GateReport['blindSpots']> {
  const stalls = acknowledged.filter((a) => a.finding.ruleId === journeyStalled.id && a.finding.subject === `step ${a.finding.step}`);
  const firstStall = new Map<string, AcknowledgedFinding>();
  for (const a of stalls) {
    const key = JSON.stringify([a.finding.baseline ?? '', a.finding.direction]);
    const seen = firstStall.get(key);
    if (!seen || stepRank(a.finding.step) < stepRank(seen.finding.step)) firstStall.set(key, a);
  }
  return [...firstStall.values()].flatMap((a) => {
    const measured = coverage.find((c) => a.finding.baseline === undefined || c.baseline === a.finding.baseline)?.directions.find((d) => d.direction === a.finding.direction);
    if (!measured) return [];
    const counts = Object.values(measured.counts);
    const applicable = counts.reduce((n, c) => n + c.applicable, 0);
    const exercised = counts.reduce((n, c) => n + c.exercised, 0);
    if (!applicable || exercised >= applicable) return [];
    return [{ direction: a.finding.direction, ...(a.finding.baseline ? { baseline: a.finding.baseline } : {}), step: a.finding.step!, entry: a.entry, unwalkedPercent: Math.round((100 * (applicable - exercised)) / applicable), coverage: coverageLine(measured.counts) }];
  });
}

/** The rules that ran over the whole journey: with passes left out, a dynamic rule saw part of it only, so it cannot prove an acknowledgement stale. */
export function rulesRunOverWholeJourney(rulesRun: readonly string[], passes: ReadonlySet<JourneyPass> | undefined): readonly string[] {
  if (!passes) return rulesRun;
  const dynamic = new Set(activeRules('dynamic').map((r) => r.id));
  return rulesRun.filter((id) => !dynamic.has(id));
}

/**
 * resolve -> build working tree -> per baseline: materialise, manifests,
 * static pass, journeys, dynamic rules -> acknowledgements -> report.
 * Throws CompatError when it cannot compare; any other exception is a gate bug.
 */
export async function runGate(opts: GateOptions): Promise<GateReport> {
  assertTermwireProject(opts.root);
  startCpuBooking();
  const gateCpuAtStart = process.cpuUsage();
  const childrenCpuAtStart = waitedChildrenCpuMs(process.pid);
  // Checked before minutes of work: an unwritable cache would otherwise fail only after the resolve.
  ensureWritableDir(cacheDirOf(opts), 'CACHE_UNWRITABLE', 'the cache directory for built baselines');
  const resolving = opts.progress.step('resolve baseline');
  const baselines = await resolveBaselines(opts.root, opts.against, { includePrerelease: opts.includePrerelease, onNote: (m) => opts.progress.note(m) }).catch((e: unknown) => {
    resolving.fail();
    throw e;
  });
  resolving.done(baselines.map((b) => `${b.label} ${b.commit.slice(0, 12)}`).join(', '));
  const acks = loadGateAcknowledgements(opts.root, opts.acknowledgements, opts.now?.() ?? new Date());

  const current = await buildWorkingTree(opts.root, opts.progress);
  const all: Finding[] = [];
  const gathered: Gathered = { notes: [], coverage: [], schedules: [], notReproduced: [], walked: [] };
  const { notes, coverage, schedules } = gathered;
  const units = opts.shard ? shardUnits(baselines.map((b) => b.label), opts.explore, opts.shard) : undefined;
  try {
    for (const [i, baseline] of baselines.entries()) all.push(...(await compareAgainst(current, baseline, opts, baselines.length > 1, gathered, units?.[i])));
  } finally {
    const { closePeerPool } = await import('./journey/peer-pool.js');
    await closePeerPool();
  }

  const rulesRun = [...activeRules('static'), ...(gathered.walked.length ? activeRules('dynamic') : [])].map((r) => r.id);
  const { failing, acknowledged, stale, ...lapsing } = applyAcknowledgements(orderByRootCause(all, sourceLocator(opts.root)), acks.entries, rulesRunOverWholeJourney(rulesRun, opts.passes), acks.today);
  const status = failing.length ? 'incompatible' : 'compatible';
  const blindSpots = blindSpotsOf(acknowledged, coverage);
  return {
    status,
    exitCode: EXIT_CODES[status],
    current: { version: current.version, commit: current.commit },
    baselines: baselines.map((b) => ({ label: b.label, commit: b.commit, version: b.version })),
    staticOnly: opts.staticOnly,
    ...(opts.passes ? { passes: JOURNEY_PASSES.filter((p) => opts.passes!.has(p)) } : {}),
    rulesRun,
    findings: failing,
    ...(blindSpots.length ? { blindSpots } : {}),
    acknowledged,
    staleAcknowledgements: stale,
    ...acknowledgementReportFields(acks, lapsing),
    ...(gathered.notReproduced.length ? { notReproduced: gathered.notReproduced } : {}),
    ...(notes.length ? { notes } : {}),
    ...(coverage.length ? { coverage } : {}),
    ...(opts.explore?.count ? { explore: { seed: opts.explore.seed, count: opts.explore.count, schedules } } : {}),
    ...(opts.shard && units ? { shard: { ...opts.shard, units } } : {}),
    cost: costOf(process.cpuUsage(gateCpuAtStart), cpuBooked(), childrenSince(childrenCpuAtStart)),
  };
}

const childrenSince = (atStart: number | undefined) => {
  const now = waitedChildrenCpuMs(process.pid);
  return now === undefined || atStart === undefined ? undefined : now - atStart;
};

/**
 * The run's CPU, in CPU-seconds: the gate process's own, its peers' booked by
 * what they ran for, and the rest of the processes it waited for (building the
 * working tree and the baseline, git), where /proc tells: what its ended
 * children used past what the peers booked.
 */
export function costOf(gate: NodeJS.CpuUsage, booked: ReadonlyMap<string, number>, childrenMs: number | undefined): NonNullable<GateReport['cost']> {
  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  const peers = Object.fromEntries([...booked].map(([what, ms]) => [what, seconds(ms)]));
  const gateS = seconds((gate.user + gate.system) / 1000);
  const peersMs = [...booked.values()].reduce((a, b) => a + b, 0);
  // A peer still running when the report is written booked CPU its parent has not yet waited for: never below zero.
  const otherS = childrenMs === undefined ? 0 : seconds(Math.max(0, childrenMs - peersMs));
  const total = gateS + Object.values(peers).reduce((a, b) => a + b, 0) + otherS;
  return { cpuSeconds: Math.round(total * 10) / 10, gateCpuSeconds: gateS, peerCpuSeconds: peers, ...(otherS > 0 ? { otherCpuSeconds: otherS } : {}) };
}
