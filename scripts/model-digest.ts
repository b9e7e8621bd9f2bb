/**
 * `npx tsx scripts/model-digest.ts > digest.txt`: one line per seed of the
 * exactly-once model test as CI runs it (TERMWIRE_SEED, TERMWIRE_SCHEDULES as
 * the test reads them; 2000 schedules of 60 steps by default): the seed, a
 * SHA-256 of its step list, failure and stats, and ok/FAIL; then a digest of
 * them all. A change meant to make the model faster, not different, leaves
 * the file identical: `cmp before.txt after.txt`.
 */
import { createHash } from 'node:crypto';
import { BASE_SEED } from '../test/helpers/seeded-property.js';
import { runSchedule } from '../test/delivery/model-schedule.js';

const SCHEDULES = Number(process.env['TERMWIRE_SCHEDULES'] ?? 2000);
const STEPS = 60;

const all = createHash('sha256');
for (let n = 0; n < SCHEDULES; n++) {
  const result = await runSchedule(BASE_SEED + n, STEPS);
  const digest = createHash('sha256').update(JSON.stringify({ steps: result.steps, failure: result.failure ?? null, stats: result.stats })).digest('hex');
  all.update(digest);
  process.stdout.write(`${result.seed} ${digest} ${result.failure ? 'FAIL' : 'ok'}\n`);
}
process.stdout.write(`all ${all.digest('hex')}\n`);
