import type { BuildInfo } from '../build-info.js';
import { CompatError } from '../errors.js';
import type { JourneyRecordingSet, PairingRecording } from '../recording.js';
import type { JourneyRecordings, RestartRecordings } from './journey-recordings.js';
import type { JourneyPass } from './disturbances.js';
import { type CarriedPasses, carrying } from './walk-again.js';
import { drivableOps, stepsSkippedInRun, undrivableByBuild } from './drivable.js';
import { PeerProcess } from './peer-process.js';
import { DEFAULT_JOURNEY_OPTIONS, type JourneyOptions, type JourneyPlan, LIFETIME_PLAN, type PairingBuild, PTY_PLAN, RESTART_PLAN, type RunDecision, runPairing, SCRIPT_PLAN, STREAM_PLAN } from './run-pairing.js';
import { lifetimeOutcomeRules, restartOutcomeRules, streamOutcomeRules } from '../rules/dynamic/pty-outcomes.js';
import type { SomePairings } from '../rules/dynamic/journey-outcome-rules.js';
import { cachedReference, type ReferenceCache } from './reference-cache.js';
import { rememberDrawnScreens } from './render-snapshots.js';
import { type StallWindows, stallWindowsFrom } from './stall-window.js';
import { DIFFERENT_CODE, type PairingPlanner, type PlannedPairing, pairingPlanner, type SameCode, sameCode, walkPlanned } from './same-code.js';

async function startCodec(side: 'old' | 'new', build: BuildInfo): Promise<PeerProcess> {
  try {
    return await PeerProcess.start({ buildDir: build.dir, role: 'codec', label: `${side} codec ${build.version}` });
  } catch (error) {
    throw new CompatError('PEER_UNAVAILABLE', (error as Error).message);
  }
}

/**
 * Runs tasks with at most `lanes` at once; results in task order. After a
 * failure no new task starts, and the first failure is thrown only once every
 * running task has finished, so nothing is still using what the caller tears down.
 */
export async function inLanes<T>(lanes: number, tasks: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (next < tasks.length && !failed) {
      const i = next++;
      try {
        results[i] = await tasks[i]!();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(lanes, tasks.length)) }, lane));
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return results;
}

/**
 * Runs the journey for the four pairings (the two same-version references and
 * both skews) on the deterministic terminal, then both skews on a real PTY.
 * Barriers wait on observed state, never on time, so overlapping pairings
 * change how long a step takes, not which frames it carries.
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
    const decisions = new Map<JourneyPlan, RunDecision>([SCRIPT_PLAN, PTY_PLAN, RESTART_PLAN, STREAM_PLAN, LIFETIME_PLAN].map((plan) => [plan, runDecision(plan, old, current)]));
    for (const [name, reason] of decisions.get(SCRIPT_PLAN)!.skipped) opts.onProgress(`journey: step ${name} skipped in every pairing of this run: ${reason}`);
    const run = (plan: JourneyPlan) => async (client: PairingBuild, host: PairingBuild, stallWindows?: StallWindows) => {
      opts.onProgress(`journey${plan === PTY_PLAN ? ' (pty)' : ''}: ${buildName('client', client)} × ${buildName('host', host)}`);
      return runPairing(client, host, options, plan, decisions.get(plan), stallWindows);
    };
    const same = sameCode(old.build.dir, current.build.dir);
    const sameNote = sameCodeNote(same);
    if (sameNote) opts.onProgress(`journey: ${sameNote}`);
    const plan = carrying(pairingPlanner(same), opts.carry);
    // The PTY pass has no same-version references, so its steps keep the whole step deadline.
    const ptyRun = (client: PairingBuild, host: PairingBuild) => plan('pty', client, host, () => run(PTY_PLAN)(client, host));
    const reference = referenceOf(opts, { plan: 'script', ...journeyShape(SCRIPT_PLAN, decisions.get(SCRIPT_PLAN)!, options) });
    const restartRun = (client: PairingBuild, host: PairingBuild, next: PairingBuild) =>
      plan('restart', client, host, () => {
        opts.onProgress(`journey (host restart): ${buildName('client', client)} × ${buildName('host', host)} restarting as ${buildName('host', next)}`);
        return runPairing(client, host, options, RESTART_PLAN, decisions.get(RESTART_PLAN), undefined, { hostAs: next });
      }, next);
    const streamRun = (client: PairingBuild, host: PairingBuild) =>
      plan('stream', client, host, () => {
        opts.onProgress(`journey (byte stream): ${buildName('client', client)} × ${buildName('host', host)}`);
        return runPairing(client, host, options, STREAM_PLAN, decisions.get(STREAM_PLAN));
      });
    const walksStream = speaksStream(old) && speaksStream(current);
    const lifetimeRun = (client: PairingBuild, host: PairingBuild) =>
      plan('lifetime', client, host, () => {
        opts.onProgress(`journey (detached lifetime): ${buildName('client', client)} × ${buildName('host', host)}`);
        return runPairing(client, host, options, LIFETIME_PLAN, decisions.get(LIFETIME_PLAN));
      });
    const lifetimePairings = ([[old, current, 'oldClientNewHost'], [current, old, 'newClientOldHost'], [current, current, 'newNew']] as const).filter(([, host]) => takesLifetime(host));
    // Each pass beside the script, as a list of pairings planned only when the pass is walked: a pairing once
    // planned is one the planner waits on, so a pass left out (`passes`) must never be planned.
    const besideScript: ReadonlyArray<readonly [JourneyPass, () => PlannedPairing[]]> = [
      ['pty', () => [ptyRun(old, current), ptyRun(current, old)]],
      ['restart', () => [restartRun(old, old, current), restartRun(current, current, old), restartRun(current, current, current)]],
      ...(walksStream ? [['stream', () => [streamRun(old, current), streamRun(current, old), streamRun(current, current)]] as const] : []),
      ...(lifetimePairings.length ? [['lifetime', () => lifetimePairings.map(([client, host]) => lifetimeRun(client, host))] as const] : []),
    ];
    const walkedBeside = besideScript.filter(([pass]) => opts.passes?.has(pass) ?? true).map(([pass, planned]) => [pass, planned()] as const);
    const { recordings, alongside } = await runFourPairings(old, current, options, run(SCRIPT_PLAN), walkedBeside.flatMap(([, planned]) => planned), reference, plan);
    let at = 0;
    const byPass = new Map(walkedBeside.map(([pass, planned]) => [pass, alongside.slice(at, (at += planned.length))]));
    const skews = (p: PairingRecording[] | undefined) => (p ? { oldClientNewHost: p[0]!, newClientOldHost: p[1]!, newNew: p[2]! } : undefined);
    const pty = byPass.get('pty');
    const restart = skews(byPass.get('restart'));
    const oldOwn = restart && restartOutcomeRules({ oldClientNewHost: restart.oldClientNewHost }).length ? await walkPlanned(restartRun(old, old, old)) : undefined;
    const lifetimeWalked = byPass.get('lifetime');
    const lifetimeByKey: SomePairings | undefined = lifetimeWalked && Object.fromEntries(lifetimePairings.map(([, , key], i) => [key, lifetimeWalked[i]!]));
    const lifetime = lifetimeByKey
      ? lifetimeOutcomeRules({ oldClientNewHost: lifetimeByKey.oldClientNewHost }).length && takesLifetime(old)
        ? { ...lifetimeByKey, oldOld: await walkPlanned(lifetimeRun(old, old)) }
        : lifetimeByKey
      : undefined;
    const streamed = skews(byPass.get('stream'));
    const stream = streamed ? await withOldOwn(streamed, streamOutcomeRules, () => walkPlanned(streamRun(old, old))) : undefined;
    return {
      ...recordings,
      ...(pty ? { pty: { oldClientNewHost: pty[0]!, newClientOldHost: pty[1]! } } : {}),
      ...(restart ? { restart: { ...restart, ...(oldOwn ? { oldOld: oldOwn } : {}) } } : {}),
      ...(stream ? { stream } : {}),
      ...(lifetime ? { lifetime } : {}),
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

/** Whether a build's peers speak the byte stream (its codec peer says so; builds before it speak WebSocket only). */
const speaksStream = (b: PairingBuild) => b.codec.hello.transports?.includes('stream') ?? false;

/** Whether a build's host peer takes a lifetime for detached terminals (PEER_HOST_ARGS); earlier builds keep the default hour. */
const takesLifetime = (b: PairingBuild) => b.codec.hello.hostArgs?.includes('detachedIdleMs') ?? false;

/** A pass judged on outcomes walks old × old only when the old client failed against the new host: to tell the release's own failing from the new host's. */
async function withOldOwn(recordings: RestartRecordings, judge: (r: RestartRecordings) => unknown[], oldOld: () => Promise<PairingRecording>): Promise<RestartRecordings> {
  return judge({ oldClientNewHost: recordings.oldClientNewHost } as RestartRecordings).length ? { ...recordings, oldOld: await oldOld() } : recordings;
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
  const oldOld = plan('script', old, old, async () => {
    const recording = await reference(() => run(old, old));
    windows = stallWindowsFrom([recording], options.stepDeadlineMs);
    return recording;
  });
  const withWindows = (client: PairingBuild, host: PairingBuild) => plan('script', client, host, () => run(client, host, windows));
  const [besideOldOld, ...later] = alongside;
  // Planned old client first: where new × new runs the same code as old client × new host, the old client's walk is
  // the one kept, since only an old client's recording draws the snapshots it was sent (snapshotScreens).
  const [skewOldClient, skewNewClient] = [withWindows(old, current), withWindows(current, old)];
  const planned = [oldOld, ...(besideOldOld ? [besideOldOld] : []), withWindows(current, current), skewOldClient, skewNewClient, ...later];
  await inLanes(
    options.concurrentPairings,
    planned.flatMap((p) => (p.walk ? [p.walk] : [])),
  );
  const results = await Promise.all(planned.map((p) => p.recording()));
  const [oldOldDone, ...afterOldOld] = results;
  const ptyFirst = besideOldOld ? afterOldOld.splice(0, 1) : [];
  const [newNew, oldClientNewHost, newClientOldHost, ...laterDone] = afterOldOld;
  return { recordings: { newNew: newNew!, oldOld: oldOldDone!, oldClientNewHost: oldClientNewHost!, newClientOldHost: newClientOldHost! }, alongside: [...ptyFirst, ...laterDone] };
}

/** What shapes a journey's frames besides the builds and the code: its steps, the ops and skips decided for the run, the options. */
export function journeyShape(plan: JourneyPlan, decision: RunDecision, options: JourneyOptions): object {
  return { steps: plan.steps.map((s) => s.name), ops: { client: [...decision.ops.client].sort(), host: [...decision.ops.host].sort() }, skipped: [...decision.skipped], options };
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
  return { ops, skipped: stepsSkippedInRun(plan.steps, ops, { old: old.codec.hello, new: current.codec.hello }) };
}

/** Both builds with their codec peers started, for as long as `use` runs. */
export async function withPairingBuilds<T>(builds: { old: BuildInfo; new: BuildInfo }, use: (old: PairingBuild, current: PairingBuild) => Promise<T>): Promise<T> {
  const codecs: PeerProcess[] = [];
  try {
    const side = async (name: 'old' | 'new'): Promise<PairingBuild> => {
      const codec = await startCodec(name, builds[name]);
      codecs.push(codec);
      return { side: name, build: builds[name], codec };
    };
    return await use(await side('old'), await side('new'));
  } finally {
    await Promise.all(codecs.map((c) => c.stop()));
  }
}
