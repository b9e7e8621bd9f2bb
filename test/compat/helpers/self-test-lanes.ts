import { availableParallelism } from 'node:os';

/**
 * How many gate runs the self-test walks at once (vitest's maxConcurrency), one clone
 * each. A fixture keeps about three quarters of a core busy (its peers wait on
 * barriers, the silent drop's dark window, the confirming walk's one pairing
 * at a time), so one lane more than the cores keeps them busy: on 2 cores two
 * lanes left the machine about 80% busy and took 1214 s, three kept it about
 * 94% busy and took 898 s, all green at load 6 to 7.
 */
export const SELF_TEST_LANES = availableParallelism() + 1;
