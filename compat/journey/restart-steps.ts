import { CORE_STEPS, first, type JourneyStep, screenShows, terminalGot } from './steps.js';

export const TYPED_AFTER_RESTART = 'echo after restart é\r';
/** Typed while no host runs: meant for the terminal that stopped, so never typed into the one that replaces it. */
export const TYPED_WHILE_HOST_DOWN = 'echo typed while down é\r';

/**
 * The restart pass: a live client, subscribed and typing, whose host stops
 * and starts again as the other build (an upgrade, or a rollback), as a
 * deployment replaces a host. The client must reconnect, take the new
 * terminal instance (a fresh screen, a fresh input ledger) and type into it
 * exactly once. Judged on outcomes, like the PTY pass: frames before and after
 * the restart come from two builds of the host. Keys typed while no host
 * runs were meant for the terminal that stopped: a terminal has an instance
 * id, and input held for one instance is never typed into another.
 */
export const RESTART_JOURNEY: readonly JourneyStep[] = [
  CORE_STEPS.subscribe,
  CORE_STEPS.initialSnapshot,
  CORE_STEPS.input,
  {
    name: 'hostRestart',
    // Keys typed while no host runs must never reach the new instance where both builds know instance ids (the runner
    // leaves them out of what the terminal must get, so INPUT_NOT_EXACTLY_ONCE sees them arrive); elsewhere at most once.
    act: async ({ restartHost }) => restartHost(TYPED_WHILE_HOST_DOWN),
    done: (o, before) =>
      first(
        o.client.subscribedCount > before.client.subscribedCount ? undefined : 'a subscribed event from the restarted host',
        o.client.snapshots.length > before.client.snapshots.length ? undefined : "the restarted host's snapshot",
        // The new terminal's screen, not the old one's: the client repainted from the instance it reconnected to.
        o.client.screen === o.host.screen ? undefined : "the client's screen equal to the restarted terminal's",
      ),
  },
  {
    name: 'inputAfterRestart',
    typed: TYPED_AFTER_RESTART,
    act: async ({ client }) => void (await client.call('write', { data: TYPED_AFTER_RESTART })),
    done: (o) => first(terminalGot(o, TYPED_AFTER_RESTART), screenShows(o, `ran: ${TYPED_AFTER_RESTART.trim()}`)),
  },
];
