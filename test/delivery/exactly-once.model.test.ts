import { describe, expect, it } from 'vitest';
import { BASE_SEED } from '../helpers/seeded-property.js';
import { runSchedule } from './model-schedule.js';

/**
 * Exactly-once input, model-based and seeded: the REAL client, journal, host
 * and ledger over a SIMULATED fault-injecting network (sim-net.ts) and a
 * virtual clock. Each schedule mixes typing, pastes and withdrawn pastes with
 * lost and duplicated Input/InputAck frames, black holes whose buffered input
 * arrives late, liveness closing dead connections, resets, an unreachable
 * host, host runtime restarts over a surviving terminal, refused writes and
 * writes of unknown outcome; then heals and checks the invariant.
 *
 * TERMWIRE_SEED sets the base seed, TERMWIRE_SCHEDULES the count (CI: 2000 of
 * 60 steps). A failure prints its seed and readable schedule; replay one with
 * TERMWIRE_SEED=<seed> TERMWIRE_SCHEDULES=1.
 *
 * GUARDS. Each was removed by hand, one at a time, and this test run with the
 * default base seed (0x7e57c0de = 2119680222) and 2000 schedules; the first
 * seeds that caught it:
 *   G1 ledger does not advance past a refused write ....... 2119680223, 2119680224, 2119680225 (input missing)
 *   G2 ledger writes nothing on a gap ...................... 2119680223, 2119680225, 2119680226 (out of order)
 *   G3 ledger re-acks duplicates without writing ........... 2119680223, 2119680227, 2119680228 (duplicate write)
 *   G4 delivery-unknown writes are never resent ............ 2119680227, 2119680234, 2119680235 (duplicate write)
 *   G5 journal dropped/renumbered on a new ledger id ....... 2119680222, 2119680223 (never settles)
 *   G6 stall resend after 5 s without progress ............. 2119680249, 2119680419 (never settles)
 *   G7 withdrawn input resent as an empty slot ............. 2119680226, 2119680229 (host stuck on the gap)
 *   G8 everything after appliedSeq resent on a new stream .. 2119680226, 2119680228 (never settles)
 *   G10 acks are cumulative ................................ 2119680223, 2119680225 (never settles)
 *   G11 sent input dropped, never replayed, on a new ledger  2119680223, 2119680245 (duplicate/reordered write)
 *   G9 resend on a resend request (with backoff) stays GREEN here: the stall
 *      resend delivers the same bytes 5 s later and this invariant has no
 *      deadline. journal-ledger.test.ts ("backoff ...", "persistent refusal ...") goes red instead.
 */
const SCHEDULES = Number(process.env['TERMWIRE_SCHEDULES'] ?? 2000);
const STEPS = 60;

describe('exactly-once input (model-based, simulated network)', () => {
  it(`${SCHEDULES} seeded schedules of ${STEPS} steps keep every input exactly once and in order`, async () => {
    const failures: string[] = [];
    const totals = { inputs: 0, restarts: 0, notices: 0 };
    for (let n = 0; n < SCHEDULES && failures.length < 3; n++) {
      const result = await runSchedule(BASE_SEED + n, STEPS);
      totals.inputs += result.stats.inputs;
      totals.restarts += result.stats.restarts;
      totals.notices += result.stats.notices;
      if (result.failure) failures.push(`seed ${result.seed} (replay: TERMWIRE_SEED=${result.seed} TERMWIRE_SCHEDULES=1): ${result.failure}\n  ${result.steps.join('\n  ')}`);
    }
    if (failures.length > 0) console.error(failures.join('\n\n'));
    expect(failures.map((f) => f.split('\n')[0])).toEqual([]);
    expect(totals.inputs).toBeGreaterThan(SCHEDULES * 10);
  }, 600_000);
});
