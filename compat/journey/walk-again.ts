import type { PairingRecording } from '../recording.js';
import { type Finding, PAIRING_LABELS } from '../rules/finding.js';
import { disturbancesOf, JOURNEY_PASSES, type JourneyPass, pairingsByPass } from './disturbances.js';
import type { JourneyRecordings } from './journey-recordings.js';
import type { PairingPlanner } from './same-code.js';

type Side = 'old' | 'new';

/**
 * A confirming walk's client liveness once a walk before it was disturbed:
 * clients that gave up links the proxy kept up say the machine stalled them
 * past their pong deadline (2 s). At a load of 20 to 25 on 2 cores every walk
 * did, and what the give-ups made was confirmed: a false red. A deadline of
 * 6 s stays under the host's own (10 s); a silent drop then takes that long to
 * notice, in these walks only, and their references are recorded with it too.
 */
export const PATIENT_CLIENTS = { clientPongDeadlineMs: 6_000 } as const;

/** The journey options a confirming walk adds, given the pairings each walk so far recorded: PATIENT_CLIENTS where one was disturbed. */
export function confirmingJourney(walksSoFar: ReadonlyArray<readonly PairingRecording[]>): Partial<typeof PATIENT_CLIENTS> {
  return walksSoFar.some((pairings) => disturbancesOf(pairings).length > 0) ? PATIENT_CLIENTS : {};
}

/** Passes not walked this time: their recordings stand from an earlier walk of the same builds. */
export interface CarriedPasses {
  readonly from: JourneyRecordings;
  readonly passes: ReadonlySet<JourneyPass>;
  /** Skews of the script, walked again or not, whose recordings stand from that walk too (scriptSkewsToCarry). */
  readonly scriptSkews?: ReadonlySet<ScriptSkew>;
}
type SkewKey = 'oldOld' | 'oldClientNewHost' | 'newClientOldHost' | 'newNew';
export type ScriptSkew = 'oldClientNewHost' | 'newClientOldHost';
const SCRIPT_SKEWS: readonly ScriptSkew[] = ['oldClientNewHost', 'newClientOldHost'];

const skewKey = (client: Side, host: Side): SkewKey => (client === 'old' ? (host === 'old' ? 'oldOld' : 'oldClientNewHost') : host === 'old' ? 'newClientOldHost' : 'newNew');

/**
 * The passes a confirming walk walks again: each where some walk so far found
 * something or was disturbed. A pass every walk saw calm and clean already has
 * its verdict (as a calm first walk that found nothing is the whole run's), so
 * it stands from the first walk instead of costing a walk one pairing at a time.
 */
export function passesToWalkAgain(walks: readonly JourneyRecordings[], findingsByPass: (r: JourneyRecordings) => Record<JourneyPass, readonly Finding[]>): Set<JourneyPass> {
  const again = new Set<JourneyPass>();
  for (const walk of walks) {
    const [found, pairings] = [findingsByPass(walk), pairingsByPass(walk)];
    for (const pass of JOURNEY_PASSES) if (found[pass].length || disturbancesOf(pairings[pass]).length) again.add(pass);
  }
  return again;
}

/**
 * The skews of the script a confirming walk need not walk again: each that no
 * walk so far found anything in or saw disturbed, as a pass every walk saw calm
 * and clean keeps its first verdict. The references (old × old, new × new) are
 * always walked afresh: every finding is judged against them, and one a busy
 * machine bent would condemn a healthy skew. None where a role runs the
 * release's code (same-code.ts): a skew is then a reference under another
 * name, and is walked afresh with it.
 */
export function scriptSkewsToCarry(walks: readonly JourneyRecordings[], scriptFindings: (r: JourneyRecordings) => readonly Finding[]): Set<ScriptSkew> {
  if (walks.some((walk) => walk.sameCode)) return new Set();
  return new Set(
    SCRIPT_SKEWS.filter((skew) =>
      walks.every((walk) => !scriptFindings(walk).some((f) => f.direction === PAIRING_LABELS[skew]) && !disturbancesOf([walk[skew]]).length),
    ),
  );
}

/**
 * The recording an earlier walk made of the pairing a pass is about to plan
 * (`what`, as the planner names it), or undefined when that walk has none: a
 * restart is named by its client and the host it restarts as.
 */
export function earlierRecording(from: JourneyRecordings, what: string, client: Side, host: Side, hostAs?: Side): PairingRecording | undefined {
  const key = skewKey(client, hostAs ?? host);
  if (what === 'script') return from[key];
  const pass = (JOURNEY_PASSES as readonly string[]).includes(what) ? (from[what as Exclude<JourneyPass, 'script'>] as Partial<Record<SkewKey, PairingRecording>> | undefined) : undefined;
  return pass?.[key];
}

/** A planner that gives the earlier walk's recording, unwalked, for each pairing of a carried pass and each carried skew of the script. */
export function carrying(plan: PairingPlanner, carry: CarriedPasses | undefined): PairingPlanner {
  if (!carry) return plan;
  return (what, client, host, walk, hostAs) => {
    const carried = carry.passes.has(what as JourneyPass) || (what === 'script' && carry.scriptSkews?.has(skewKey(client.side, host.side) as ScriptSkew));
    const earlier = carried ? earlierRecording(carry.from, what, client.side, host.side, hostAs?.side) : undefined;
    return earlier ? { recording: async () => earlier } : plan(what, client, host, walk, hostAs);
  };
}
