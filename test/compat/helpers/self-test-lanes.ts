import { availableParallelism } from 'node:os';

/**
 * How many gate runs the self-test walks at once (vitest's maxConcurrency), one clone
 * each. A fixture's gate waits on its peers' timers for much of its wall time
 * (a script pairing's stall resend and pong deadline, the confirming walk's
 * one pairing at a time), so one lane more than the cores. On 2 cores three
 * lanes left the cores about half idle; five took a fifth less wall time but
 * a fifth more CPU, as the fixtures that walk every pass slowed each other
 * fourfold, and the budget is CPU.
 */
export const SELF_TEST_LANES = availableParallelism() + 1;
