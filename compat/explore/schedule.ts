import { CORE_STEPS, type JourneyStep } from '../journey/steps.js';
import { SURFACE_STEPS } from '../journey/surface-steps.js';
import { MOVES } from './moves.js';
import { seededRandom } from './prng.js';

/** How many moves a schedule draws between the subscribe and the unsubscribe. */
export const EXPLORE_MOVES = { min: 4, max: 10 } as const;

export interface Schedule {
  readonly seed: number;
  /** The moves drawn, in order: what a failing seed prints. */
  readonly moves: readonly string[];
  readonly steps: readonly JourneyStep[];
}

/**
 * One explore journey, drawn from `seed` alone: subscribe and the initial
 * snapshot, then moves, sometimes the terminal's exit with input after it,
 * then the unsubscribe and input after it. The same seed draws the same schedule.
 */
export function drawSchedule(seed: number): Schedule {
  const random = seededRandom(seed);
  const total = MOVES.reduce((sum, m) => sum + m.weight, 0);
  const count = EXPLORE_MOVES.min + Math.floor(random() * (EXPLORE_MOVES.max - EXPLORE_MOVES.min + 1));
  const moves: string[] = [];
  const steps: JourneyStep[] = [CORE_STEPS.subscribe, CORE_STEPS.initialSnapshot];
  for (let n = 0; n < count; n++) {
    let pick = random() * total;
    const move = MOVES.find((m) => (pick -= m.weight) < 0) ?? MOVES[MOVES.length - 1]!;
    moves.push(move.name);
    steps.push(...move.steps(n));
  }
  if (random() < 0.3) {
    moves.push('exit');
    // The second client is attached before the exit: attached after it, it would start the terminal its name now names afresh.
    steps.push(SURFACE_STEPS.secondClient, SURFACE_STEPS.exit, SURFACE_STEPS.inputAfterExit);
  }
  steps.push(CORE_STEPS.unsubscribe, SURFACE_STEPS.inputAfterUnsubscribe);
  return { seed, moves, steps };
}

export const describeSchedule = (s: Schedule) => `seed ${s.seed}: ${s.moves.join(' → ') || '(no moves)'}`;
