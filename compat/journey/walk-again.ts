import type { PairingRecording } from '../recording.js';
import type { Finding } from '../rules/finding.js';
import { disturbancesOf, JOURNEY_PASSES, type JourneyPass, pairingsByPass } from './disturbances.js';
import type { JourneyRecordings } from './journey-recordings.js';
import type { PairingPlanner } from './same-code.js';

type Side = 'old' | 'new';

/** Passes not walked this time: their recordings stand from an earlier walk of the same builds. */
export interface CarriedPasses {
  readonly from: JourneyRecordings;
  readonly passes: ReadonlySet<JourneyPass>;
}
type SkewKey = 'oldOld' | 'oldClientNewHost' | 'newClientOldHost' | 'newNew';

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
 * The recording an earlier walk made of the pairing a pass is about to plan
 * (`what`, as the planner names it), or undefined when that walk has none: a
 * restart is named by its client and the host it restarts as.
 */
export function earlierRecording(from: JourneyRecordings, what: string, client: Side, host: Side, hostAs?: Side): PairingRecording | undefined {
  const key = skewKey(client, hostAs ?? host);
  switch (what as JourneyPass) {
    case 'script':
      return from[key];
    case 'pty':
      return key === 'oldClientNewHost' || key === 'newClientOldHost' ? from.pty?.[key] : undefined;
    case 'restart':
      return from.restart?.[key];
    case 'stream':
      return from.stream?.[key];
    case 'lifetime':
      return from.lifetime?.[key];
    default:
      return undefined;
  }
}

/** A planner that gives the earlier walk's recording, unwalked, for each pairing of a carried pass. */
export function carrying(plan: PairingPlanner, carry: CarriedPasses | undefined): PairingPlanner {
  if (!carry) return plan;
  return (what, client, host, walk, hostAs) => {
    const earlier = carry.passes.has(what as JourneyPass) ? earlierRecording(carry.from, what, client.side, host.side, hostAs?.side) : undefined;
    return earlier ? { recording: async () => earlier } : plan(what, client, host, walk, hostAs);
  };
}
