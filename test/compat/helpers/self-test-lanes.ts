import { availableParallelism } from 'node:os';

/**
 * How many gate runs the self-test walks at once (vitest's maxConcurrency), one clone
 * each. A fixture's gate waits on its peers' timers most of its wall time (a
 * script pairing's stall resend and pong deadline, the confirming walk's one
 * pairing at a time), so it keeps about half a core busy: two lanes per core,
 * and one more, keep the cores busy. On 2 cores three lanes took 837 s and
 * used 867 CPU-s, the cores half idle.
 */
export const SELF_TEST_LANES = 2 * availableParallelism() + 1;
