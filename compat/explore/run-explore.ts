import type { BuildInfo } from '../build-info.js';
import { pairingPlanner, sameCode } from '../journey/same-code.js';
import { journeyShape, referenceOf, runDecision, runFourPairings, withPairingBuilds } from '../journey/run.js';
import type { ReferenceCache } from '../journey/reference-cache.js';
import { Lanes } from '../journey/lanes.js';
import { DEFAULT_JOURNEY_OPTIONS, type JourneyOptions, type JourneyPlan, runPairing } from '../journey/run-pairing.js';
import type { JourneyRecordingSet } from '../recording.js';
import { describeSchedule, drawSchedule, type Schedule, WITHOUT_MOVE } from './schedule.js';

export interface ExploreOptions {
  /** Journeys per pairing. */
  readonly count: number;
  /** Journey i draws its schedule from seed + i, so `--explore 1 --seed <that>` replays it alone. */
  readonly seed: number;
  /** Schedules to walk as they are, instead of drawing `count` (a shrunk schedule, `--replay`). */
  readonly schedules?: readonly Schedule[];
  /** The gate's capability-off pass: its journeys' CPU is booked per capability (`without X`), not as explore's. */
  readonly capabilityOffPass?: boolean;
}

export interface ExploreJourney {
  readonly schedule: Schedule;
  readonly recordings: JourneyRecordingSet;
}

/**
 * Seeded explore journeys on the deterministic terminal: each schedule runs in
 * all four pairings, so every skew has same-version references of the same
 * seed to be judged against, under the same rules as the scripted journey.
 */
export async function runExplore(
  builds: { old: BuildInfo; new: BuildInfo },
  explore: ExploreOptions,
  opts: { onProgress: (msg: string) => void; journey?: Partial<JourneyOptions>; references?: ReferenceCache },
): Promise<ExploreJourney[]> {
  const given = { ...DEFAULT_JOURNEY_OPTIONS, ...opts.journey };
  // Every schedule's pairings queue in one set of lanes: a schedule's few short pairings no longer leave the others idle.
  const options: JourneyOptions = { ...given, sharedLanes: given.sharedLanes ?? new Lanes(given.concurrentPairings) };
  return withPairingBuilds(builds, async (old, current) => {
    const same = sameCode(old.build.dir, current.build.dir);
    const schedules = explore.schedules ?? Array.from({ length: explore.count }, (_, i) => drawSchedule((explore.seed + i) >>> 0));
    const walked = await Promise.allSettled(
      schedules.map(async (schedule, i): Promise<ExploreJourney> => {
        // The proxy withholds the capability from every Subscribe, so any two builds can walk it (withheldFromSubscribe).
        const plan: JourneyPlan = { costsFor: schedule.capabilityOff && explore.capabilityOffPass ? `without ${schedule.capabilityOff}` : 'explore', hostBackend: 'script', steps: schedule.steps, ...(schedule.capabilityOff ? { withheldCapability: schedule.capabilityOff } : {}) };
        const decision = runDecision(plan, old, current);
        const progress = (msg: string) => opts.onProgress(`explore ${i + 1}/${schedules.length}: ${msg}`);
        progress(describeSchedule(schedule));
        const reference = referenceOf({ ...opts, onProgress: progress }, { plan: 'explore', seed: schedule.seed, schedule: describeSchedule(schedule), capabilityOff: plan.withheldCapability ?? null, ...journeyShape(plan, decision, options) });
        const { recordings } = await runFourPairings(old, current, options, (client, host, windows) => runPairing(client, host, options, plan, decision, windows), [], reference, pairingPlanner(same));
        return { schedule, recordings };
      }),
    );
    // Every schedule has finished before the codec peers stop; the first failure is the walk's.
    const failure = walked.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failure) throw failure.reason;
    return walked.map((w) => (w as PromiseFulfilledResult<ExploreJourney>).value);
  });
}
