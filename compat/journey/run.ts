import type { BuildInfo } from '../build-info.js';
import { CompatError } from '../errors.js';
import type { JourneyRecordingSet, PairingRecording } from '../recording.js';
import type { JourneyRecordings } from './journey-recordings.js';
import type { JourneyPass } from './disturbances.js';
import { type CarriedPasses, carrying } from './walk-again.js';
import { drivableOps, stepsSkippedInRun, undrivableByBuild } from './drivable.js';
import type { Peer } from './peer-process.js';
import { codecPeer } from './peer-pool.js';
import { bookCpu } from '../cpu-booked.js';
import { DEFAULT_JOURNEY_OPTIONS, type JourneyOptions, type JourneyPlan, type PairingBuild, type RunDecision, runPairing, SCRIPT_PLAN, takesClientArg, takesHostArg } from './run-pairing.js';
import type { PassRecordings } from '../rules/dynamic/pty-outcomes.js';
import { type JourneyPassSpec, judgePass, PASSES, type PassPairing } from './passes.js';
import { cachedReference, type ReferenceCache } from './reference-cache.js';
import { hostHoldsBytes, journeyFlow } from './journey-flow.js';
import { rememberDrawnScreens } from './render-snapshots.js';
import { type StallWindows, stallWindowsFrom } from './stall-window.js';
import { Lanes } from './lanes.js';
import { DIFFERENT_CODE, type PairingPlanner, type PlannedPairing, pairingPlanner, type SameCode, sameCode, walkPlanned } from './same-code.js';

async function startCodec(side: 'old' | 'new', build: BuildInfo): Promise<Peer> {
  try {
    return await codecPeer({ buildDir: build.dir, role: 'codec', label: `${side} codec ${build.version}` });
  } catch (error) {
    throw new CompatError('PEER_UNAVAILABLE', (error as Error).message);
  }
}

/**
 * Runs the scripted journey in its four pairings (the two same-version
 * references and both skews) on the deterministic terminal, and each pass of
 * PASSES beside it that both builds can walk. Barriers wait on observed state,
 * never on time, so overlapping pairings change how long a step takes, not
 * which frames it carries.
 */
export async function runJourneyPairings(
  builds: { old: BuildInfo; new: BuildInfo },
  opts: {
    onProgress: (msg: string) => void;
    journey?: Partial<JourneyOptions>;
    references?: ReferenceCache;
    /** Passes not walked this time: their recordings stand from an earlier walk (walk-again.ts). */
    carry?: CarriedPasses;
    /** The passes beside the script to walk (`--passes`); all that both builds can walk when absent. The script is always walked. */
    passes?: ReadonlySet<JourneyPass>;
  },
): Promise<JourneyRecordings> {
  const options = { ...DEFAULT_JOURNEY_OPTIONS, ...opts.journey };
  return withPairingBuilds(builds, async (old, current) => {
    // Decided once for the run, from both builds' announced peer ops, so all four pairings walk the same steps.
    const decisions = new Map<JourneyPlan, RunDecision>([SCRIPT_PLAN, ...PASSES.map((p) => p.plan)].map((plan) => [plan, runDecision(plan, old, current)]));
    for (const [name, reason] of decisions.get(SCRIPT_PLAN)!.skipped) opts.onProgress(`journey: step ${name} skipped in every pairing of this run: ${reason}`);
    const runScript = async (client: PairingBuild, host: PairingBuild, stallWindows?: StallWindows) => {
      opts.onProgress(`journey: ${buildName('client', client)} × ${buildName('host', host)}`);
      return runPairing(client, host, options, SCRIPT_PLAN, decisions.get(SCRIPT_PLAN), stallWindows);
    };
    const same = sameCode(old.build.dir, current.build.dir);
    const sameNote = sameCodeNote(same);
    if (sameNote) opts.onProgress(`journey: ${sameNote}`);
    const plan = carrying(pairingPlanner(same), opts.carry);
    const reference = referenceOf(opts, { plan: 'script', ...journeyShape(SCRIPT_PLAN, decisions.get(SCRIPT_PLAN)!, options) });
    // A pass has no same-version references to learn stall windows from, so its steps keep the whole step deadline.
    const walkPass = (spec: JourneyPassSpec, p: PassPairing) =>
      plan(
        spec.name,
        p.client,
        p.host,
        () => {
          opts.onProgress(`journey (${spec.label}): ${buildName('client', p.client)} × ${buildName('host', p.host)}${p.hostAs ? ` restarting as ${buildName('host', p.hostAs)}` : ''}`);
          return runPairing(p.client, p.host, options, spec.plan, decisions.get(spec.plan), undefined, p.hostAs ? { hostAs: p.hostAs } : undefined);
        },
        p.hostAs,
      );
    const unwalked = Object.fromEntries(PASSES.flatMap((spec) => (opts.passes && !opts.passes.has(spec.name) ? [] : ((why) => (why ? [[spec.name, why] as const] : []))(spec.unwalkable(old, current)))));
    // Each pass is planned only when it is walked: a pairing once planned is one the planner waits on.
    const walked = PASSES.filter((spec) => (opts.passes?.has(spec.name) ?? true) && !(spec.name in unwalked)).map((spec) => {
      const pairings = spec.pairings(old, current);
      return { spec, pairings, planned: pairings.map((p) => walkPass(spec, p)) };
    });
    const { recordings, alongside } = await runFourPairings(old, current, options, runScript, walked.flatMap((w) => w.planned), reference, plan);
    let at = 0;
    const passes: Partial<Record<JourneyPass, PassRecordings>> = {};
    for (const { spec, pairings, planned } of walked) {
      const got = alongside.slice(at, (at += planned.length));
      const byKey: PassRecordings = Object.fromEntries(pairings.map((p, i) => [p.key, got[i]!]));
      // Old × old only when the old client failed against the new host: to tell the release's own failing from the new host's.
      const own = spec.oldOwn?.(old);
      const failedOldClient = own && byKey.oldClientNewHost && judgePass(spec, { oldClientNewHost: byKey.oldClientNewHost }).length;
      passes[spec.name] = failedOldClient ? { ...byKey, oldOld: await walkPlanned(walkPass(spec, own)) } : byKey;
    }
    return {
      ...recordings,
      ...(passes as Pick<JourneyRecordings, 'pty' | 'restart' | 'stream' | 'lifetime'>),
      ...(Object.keys(unwalked).length ? { unwalked } : {}),
      skippedSteps: decisions.get(SCRIPT_PLAN)!.skipped,
      undrivable: undrivableByBuild(SCRIPT_PLAN.steps, { old: old.codec.hello, new: current.codec.hello }),
      ...(sameNote ? { sameCode: sameNote } : {}),
    };
  });
}

/** What the run says when a role's code is the release's, so some pairings are walked once for two. */
export function sameCodeNote(same: SameCode): string | undefined {
  if (same.client && same.host) return "the peers of the working tree run the release's code in both roles: every pairing is old × old, walked once";
  if (same.client) return "the working tree's client runs the release's code (its peer's compiled imports are identical): new client × old host is old × old and new × new is old client × new host, each walked once";
  if (same.host) return "the working tree's host runs the release's code (its peer's compiled imports are identical): old client × new host is old × old and new × new is new client × old host, each walked once";
  return undefined;
}

/** `old client 0.1.0` and `new host (working tree)`: the new side is the tree under test, whatever version it still carries. */
const buildName = (role: 'client' | 'host', b: PairingBuild) => `${b.side} ${role} ${b.side === 'old' ? b.build.version : '(working tree)'}`;

type RunOne = (client: PairingBuild, host: PairingBuild, stallWindows?: StallWindows) => Promise<PairingRecording>;

/**
 * Old × old first: the baseline's own run is the measure of how long each step
 * takes when nothing is broken (a break in the working tree stalls new × new
 * too). Every pairing that starts after it gets stall windows learned from it;
 * one that starts beside it (new × new in explore) keeps the step deadline.
 * The PTY pass (`alongside`) runs beside old × old first, so the script
 * pairings usually start with windows. With old × old from the reference cache
 * nothing waits for it. Each pairing has its own peers and proxy, so they overlap.
 */
export async function runFourPairings(
  old: PairingBuild,
  current: PairingBuild,
  options: JourneyOptions,
  run: RunOne,
  alongside: readonly PlannedPairing[] = [],
  reference: (record: () => Promise<PairingRecording>) => Promise<PairingRecording> = (record) => record(),
  plan: PairingPlanner = pairingPlanner(DIFFERENT_CODE),
): Promise<{ recordings: JourneyRecordingSet; alongside: PairingRecording[] }> {
  let windows: StallWindows | undefined;
  // Settles once old × old is known to be recorded now (pairings beside it keep the deadline) or was read from the
  // reference cache (its windows at once): a pairing that started in the same turn as a cached old × old missed them.
  let oldOldKnown!: () => void;
  const known = new Promise<void>((resolve) => (oldOldKnown = resolve));
  const oldOld = plan('script', old, old, async () => {
    try {
      const recording = await reference(() => (oldOldKnown(), run(old, old)));
      windows = stallWindowsFrom([recording], options.stepDeadlineMs, options.clientPongDeadlineMs);
      return recording;
    } finally {
      oldOldKnown();
    }
  });
  if (!oldOld.walk) oldOldKnown();
  const withWindows = (client: PairingBuild, host: PairingBuild) => plan('script', client, host, async () => (await known, run(client, host, windows)));
  const [besideOldOld, ...later] = alongside;
  // Planned old client first: where new × new runs the same code as old client × new host, the old client's walk is
  // the one kept, since only an old client's recording draws the snapshots it was sent (snapshotScreens).
  const [skewOldClient, skewNewClient] = [withWindows(old, current), withWindows(current, old)];
  const planned = [oldOld, ...(besideOldOld ? [besideOldOld] : []), withWindows(current, current), skewOldClient, skewNewClient, ...later];
  await (options.sharedLanes ?? new Lanes(options.concurrentPairings)).run(planned.flatMap((p) => (p.walk ? [p.walk] : [])));
  const results = await Promise.all(planned.map((p) => p.recording()));
  const [oldOldDone, ...afterOldOld] = results;
  const ptyFirst = besideOldOld ? afterOldOld.splice(0, 1) : [];
  const [newNew, oldClientNewHost, newClientOldHost, ...laterDone] = afterOldOld;
  return { recordings: { newNew: newNew!, oldOld: oldOldDone!, oldClientNewHost: oldClientNewHost!, newClientOldHost: newClientOldHost! }, alongside: [...ptyFirst, ...laterDone] };
}

/**
 * What shapes a journey's frames besides the builds and the code: its steps, the ops and skips decided for the run, the
 * options. Not how many pairings run at once (a machine's cores, lanes shared with other walks), which changes how long a step takes, not its frames.
 */
export function journeyShape(plan: JourneyPlan, decision: RunDecision, options: JourneyOptions): object {
  const { concurrentPairings: _lanes, sharedLanes: _shared, ...shaping } = options;
  return { steps: plan.steps.map((s) => s.name), ops: { client: [...decision.ops.client].sort(), host: [...decision.ops.host].sort() }, skipped: [...decision.skipped], flow: decision.flow, options: shaping };
}

/** Old × old through the reference cache, when the caller gave one; says so when it was reused. */
export function referenceOf(opts: { onProgress: (msg: string) => void; references?: ReferenceCache }, shape: object) {
  return async (record: () => Promise<PairingRecording>) => {
    let recorded = false;
    const recording = await cachedReference(opts.references, shape, () => ((recorded = true), record()));
    if (!recorded) {
      opts.onProgress('journey: old client × old host reused from the reference cache');
      rememberDrawnScreens(recording);
    }
    return recording;
  };
}

/** Which steps of `plan` every pairing of this run walks: only those both builds' peers can drive. */
export function runDecision(plan: JourneyPlan, old: PairingBuild, current: PairingBuild): RunDecision {
  const ops = drivableOps(old.codec.hello, current.codec.hello);
  return { ops, skipped: stepsSkippedInRun(plan.steps, ops, { old: old.codec.hello, new: current.codec.hello }), flow: journeyFlow([old, current].map((b) => ({ takesFlowLimits: takesHostArg(b, 'flowLimits'), takesAckBatchBytes: takesClientArg(b, 'ackBatchBytes'), holdsBytes: b.holdsBytes }))) };
}

/** Both builds with their codec peers started, for as long as `use` runs. */
export async function withPairingBuilds<T>(builds: { old: BuildInfo; new: BuildInfo }, use: (old: PairingBuild, current: PairingBuild) => Promise<T>, costsFor = 'decoding recordings'): Promise<T> {
  const codecs: Peer[] = [];
  try {
    const side = async (name: 'old' | 'new'): Promise<PairingBuild> => {
      const [codec, holdsBytes] = await Promise.all([startCodec(name, builds[name]).then((c) => (codecs.push(c), c)), hostHoldsBytes(builds[name].dir)]);
      return { side: name, build: builds[name], codec, holdsBytes };
    };
    return await use(await side('old'), await side('new'));
  } finally {
    await Promise.all(codecs.map((c) => c.stop()));
    bookCpu(costsFor, codecs.reduce((sum, c) => sum + c.cpuMs, 0));
  }
}
