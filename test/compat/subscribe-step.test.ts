import { describe, expect, it } from 'vitest';
import { RELEASED_JOURNEY_FLOW } from '../../compat/journey/journey-flow.js';
import type { Observation } from '../../compat/journey/observed-state.js';
import { SUBSCRIBE_STEP } from '../../compat/journey/steps.js';

/** Only what the subscribe step's barrier reads: the client's subscribed events and snapshots. */
const seen = (subscribedCount: number, snapshots: number) => ({ client: { subscribedCount, snapshots: Array.from({ length: snapshots }, () => ({})) } }) as unknown as Observation;

describe('the subscribe step', () => {
  it("ends on the Subscribe's whole answer, so the snapshot's frames are in this step in every walk, however slowly a busy host serialised it", () => {
    const before = seen(0, 0);
    expect(SUBSCRIBE_STEP.done(seen(0, 0), before, RELEASED_JOURNEY_FLOW)).toBe('a subscribed event on the client');
    expect(SUBSCRIBE_STEP.done(seen(1, 0), before, RELEASED_JOURNEY_FLOW)).toBe('the snapshot answering the Subscribe');
    expect(SUBSCRIBE_STEP.done(seen(1, 1), before, RELEASED_JOURNEY_FLOW)).toBeUndefined();
  });
});
