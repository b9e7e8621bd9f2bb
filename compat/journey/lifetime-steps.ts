import { setTimeout as delay } from 'node:timers/promises';
import type { Observation } from './observed-state.js';
import { CORE_STEPS, first, JOURNEY_TERMINAL, JOURNEY_VIEWPORT, type JourneyStep, resubscribed, SCRIPT_BANNER, screenShows, StepNotJudged, TYPED_BEFORE_DROP, unsubscribedSinceStep } from './steps.js';

/**
 * The lifetime pass's host keeps a detached terminal this long (its
 * `detachedTerminalIdleMs`, through the host peer's `--detached-idle-ms`):
 * short, so the promise is observed in seconds, not the default hour.
 */
export const JOURNEY_DETACHED_LIFETIME_MS = 3_000;
/** The client comes back this long after it left: well inside the lifetime, with the rest as room for a slow machine. */
export const COMES_BACK_AFTER_MS = JOURNEY_DETACHED_LIFETIME_MS / 2;


const detached = (o: Observation) => (o.host.terminal?.running && o.host.terminal.subscribers === 0 ? undefined : 'the host counting the terminal running with no subscriber');

/**
 * The host promises a detached terminal lives on for its lifetime
 * (detachedTerminalIdleMs, a limit floor): a client that leaves and comes back
 * within it finds the terminal it left, its screen and state, not a new one.
 * Timed from before the Unsubscribe to the new stream's snapshot: when that
 * took the whole lifetime, the host may rightly have ended it, and the step is
 * not judged.
 */
const backWithinLifetime: JourneyStep = {
  name: 'backWithinLifetime',
  act: async ({ client, until, before }) => {
    const left = Date.now();
    await client.call('unsubscribe');
    await until((o) => first(unsubscribedSinceStep(o, before), detached(o)));
    await delay(Math.max(0, COMES_BACK_AFTER_MS - (Date.now() - left)));
    await client.call('subscribe', { terminal: JOURNEY_TERMINAL, ...JOURNEY_VIEWPORT });
    await until((o) => resubscribed(o, before));
    const away = Date.now() - left;
    if (away >= JOURNEY_DETACHED_LIFETIME_MS) throw new StepNotJudged(`the client came back ${away} ms after it left, past the host's lifetime of ${JOURNEY_DETACHED_LIFETIME_MS} ms (a busy machine)`);
  },
  done: (o, before) =>
    first(
      resubscribed(o, before),
      o.client.screen.includes(`ran: ${TYPED_BEFORE_DROP.trim()}`) ? undefined : `the terminal it left ${COMES_BACK_AFTER_MS} ms before (of a ${JOURNEY_DETACHED_LIFETIME_MS} ms lifetime) still there, its screen showing 'ran: ${TYPED_BEFORE_DROP.trim()}'`,
    ),
};

/**
 * The other side of the deadline: the client leaves and stays away until the
 * host has ended the detached terminal (observed, not timed), then subscribes
 * to its name again and must get a new terminal, not the one it left.
 */
const backAfterLifetime: JourneyStep = {
  name: 'backAfterLifetime',
  act: async ({ client, until, before }) => {
    await client.call('unsubscribe');
    await until((o) => first(unsubscribedSinceStep(o, before), detached(o)));
    await until((o) => (o.host.terminal === undefined || !o.host.terminal.running ? undefined : `the host ending the terminal left detached past its lifetime of ${JOURNEY_DETACHED_LIFETIME_MS} ms`));
    await client.call('subscribe', { terminal: JOURNEY_TERMINAL, ...JOURNEY_VIEWPORT });
  },
  done: (o, before) =>
    first(
      resubscribed(o, before),
      screenShows(o, SCRIPT_BANNER),
      o.client.screen.includes(`ran: ${TYPED_BEFORE_DROP.trim()}`) ? `a new terminal, not the one it left (its screen still shows 'ran: ${TYPED_BEFORE_DROP.trim()}')` : undefined,
    ),
};


/**
 * The lifetime pass: a client types into its terminal, leaves it (an
 * Unsubscribe) and comes back halfway through the host's lifetime for
 * detached terminals. Its own pass, since a lifetime short enough to observe
 * would end the script journey's terminal while a loaded machine reconnects.
 * Judged on outcomes.
 */
export const LIFETIME_JOURNEY: readonly JourneyStep[] = [CORE_STEPS.subscribe, CORE_STEPS.initialSnapshot, CORE_STEPS.input, backWithinLifetime, backAfterLifetime];
