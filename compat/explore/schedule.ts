import { CORE_STEPS, type JourneyStep } from '../journey/steps.js';
import { SURFACE_STEPS } from '../journey/surface-steps.js';
import { MOVES } from './moves.js';
import { seededRandom } from './prng.js';
import { CAPABILITY_NAMES } from '../../src/capabilities/registry.js';

/** How many moves a schedule draws between the subscribe and the unsubscribe. */
export const EXPLORE_MOVES = { min: 4, max: 10 } as const;

export interface Schedule {
  readonly seed: number;
  /** The moves drawn, in order: what a failing seed prints. */
  readonly moves: readonly string[];
  readonly steps: readonly JourneyStep[];
  /** A capability every client of the journey leaves out of what it advertises (a first move `without:NAME`). */
  readonly capabilityOff?: string;
}

/**
 * A first move that switches one optional capability off in every client of
 * the journey, drawn 4 times in 10: the host's paths for a client without it
 * (no Ack credit, no pause, unsequenced input, errors instead of
 * WriteUnavailable) are walked under every move that follows.
 */
export const WITHOUT_MOVE = 'without:';
const WITHOUT_CHANCE = 0.4;

/** The move that ends a schedule with the terminal's exit (and input after it), drawn 3 times in 10. */
export const EXIT_MOVE = 'exit';

/**
 * One explore journey, drawn from `seed` alone: subscribe and the initial
 * snapshot, then moves, sometimes the terminal's exit with input after it,
 * then the unsubscribe and input after it. The same seed draws the same schedule.
 *
 * Steered by behaviour, as a coverage-guided fuzzer prefers new edges: each
 * move's weight grows with the behaviour it reaches that the schedule has not
 * drawn yet, so a schedule spreads over the table instead of repeating one
 * mechanism. Only the schedule's own draws steer it: a seed must replay alone
 * (`--explore 1 --seed S`) and a shard must draw what the whole run draws.
 */
export function drawSchedule(seed: number, steered = true): Schedule {
  const random = seededRandom(seed);
  const count = EXPLORE_MOVES.min + Math.floor(random() * (EXPLORE_MOVES.max - EXPLORE_MOVES.min + 1));
  const moves: string[] = [];
  const drawn = new Set<string>();
  if (random() < WITHOUT_CHANCE) moves.push(`${WITHOUT_MOVE}${CAPABILITY_NAMES[Math.floor(random() * CAPABILITY_NAMES.length)]}`);
  for (let n = 0; n < count; n++) {
    const afterResize = RESIZING_MOVES.has(moves.at(-1) ?? '');
    const weights = MOVES.map((m) => (afterResize && ATTACHING_MOVES.has(m.name) ? 0 : m.weight * (steered ? 1 + STEER_PER_NEW_BEHAVIOUR * m.reaches.filter((r) => !drawn.has(r)).length : 1)));
    let pick = random() * weights.reduce((sum, w) => sum + w, 0);
    const move = MOVES[weights.findIndex((w) => (pick -= w) < 0)] ?? MOVES[MOVES.length - 1]!;
    moves.push(move.name);
    for (const r of move.reaches) drawn.add(r);
  }
  if (random() < 0.3 && !RESIZING_MOVES.has(moves.at(-1) ?? '')) moves.push(EXIT_MOVE);
  return scheduleOf(seed, moves);
}

/**
 * A second client attached right after a resize subscribes inside the host's
 * resize interval, so whether its own size comes as a separate Resized depends
 * on timing, and the frames of two walks differ (seed 267245943). A draw never
 * puts a move that attaches it (the exit move too) right after one that resizes.
 */
const RESIZING_MOVES = new Set(['resize', 'claimViewport']);
const ATTACHING_MOVES = new Set(['secondClient', 'claimViewport']);

/** How much each behaviour a move would reach for the first time in its schedule adds to its weight, as a share of it. */
const STEER_PER_NEW_BEHAVIOUR = 1;

/**
 * The journey of a list of moves, as drawSchedule builds it: what a shrunk
 * schedule and `--replay` run. Move n takes its texts and sizes from n, so
 * the same list always walks the same steps.
 */
export function scheduleOf(seed: number, moves: readonly string[]): Schedule {
  const steps: JourneyStep[] = [CORE_STEPS.subscribe, CORE_STEPS.initialSnapshot];
  let capabilityOff: string | undefined;
  moves.forEach((name, n) => {
    if (name.startsWith(WITHOUT_MOVE)) {
      if (n !== 0) throw new RangeError(`a '${WITHOUT_MOVE}' move can only come first`);
      return void (capabilityOff = name.slice(WITHOUT_MOVE.length));
    }
    if (name === EXIT_MOVE) {
      if (n !== moves.length - 1) throw new RangeError(`the '${EXIT_MOVE}' move can only come last`);
      // The second client is attached before the exit: attached after it, it would start the terminal its name now names afresh.
      return void steps.push(SURFACE_STEPS.secondClient, SURFACE_STEPS.exit, SURFACE_STEPS.inputAfterExit);
    }
    const move = MOVES.find((m) => m.name === name);
    if (!move) throw new RangeError(`unknown explore move '${name}' (known: ${[...MOVES.map((m) => m.name), EXIT_MOVE].join(', ')})`);
    steps.push(...move.steps(n));
  });
  steps.push(CORE_STEPS.unsubscribe, SURFACE_STEPS.inputAfterUnsubscribe);
  return { seed, moves, steps, ...(capabilityOff ? { capabilityOff } : {}) };
}

export const describeSchedule = (s: Schedule) => `seed ${s.seed}: ${s.moves.join(' → ') || '(no moves)'}`;
