/**
 * `npm run soak -- --minutes N [--healthy N] [--skip 'abuser name']...` (default 2 minutes, 4 typists): abusers and healthy typists
 * against one `termwire serve` in a child process; prints peak RSS, echo
 * latency, how each abuser was refused, and the exit time on SIGTERM.
 * Exits 1 when a target is missed.
 */
import { parseArgs } from 'node:util';
import { formatSoakReport } from './soak/report.js';
import { runSoak, SOAK_TARGETS } from './soak/run.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '2' }, healthy: { type: 'string', default: '4' }, skip: { type: 'string', multiple: true, default: [] } } });
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  process.stderr.write(`soak: --minutes must be a positive number, got '${values.minutes}'\n`);
  process.exit(2);
}
const report = await runSoak({ durationMs: minutes * 60_000, healthyClients: Number(values.healthy), skip: values.skip });
process.stdout.write(`${formatSoakReport(report)}\n`);
const met = report.peakRssBytes < SOAK_TARGETS.peakRssBytes && report.p99Ms < SOAK_TARGETS.healthyP99Ms && report.exitMs !== undefined && report.exitMs < SOAK_TARGETS.exitMs;
process.exitCode = met ? 0 : 1;
