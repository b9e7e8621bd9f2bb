/**
 * `npm run soak -- --minutes N [--healthy N]`: every abuser at once and
 * healthy typists against one `termwire serve` in a child process.
 * `npm run soak -- --per-attack [--seconds N] [--attack NAME]...`: each of
 * issue 20's attacks alone against a fresh server (default 20 s each).
 * Prints peak RSS, echo latency, a newcomer's Subscribe latency, what each
 * abuser got, and the exit time on SIGTERM sent while the abuse goes on.
 * Exits 1 when a target is missed.
 */
import { parseArgs } from 'node:util';
import { ATTACKS } from './soak/attacks.js';
import { formatAttackReports, formatSoakReport } from './soak/report.js';
import { metTargets, runSoak, SOAK_TARGETS } from './soak/run.js';

const usage = 'usage: npm run soak -- [--minutes N] [--healthy N] | --per-attack [--seconds N] [--attack NAME]...';
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    healthy: { type: 'string', default: '4' },
    'per-attack': { type: 'boolean', default: false },
    seconds: { type: 'string', default: '20' },
    attack: { type: 'string', multiple: true, default: [] },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`${usage}\nattacks:\n${ATTACKS.map((a) => `  ${a.name}`).join('\n')}\n`);
  process.exit(0);
}
function positive(name: string, value: string): number {
  const n = Number(value);
  if (n > 0) return n;
  process.stderr.write(`soak: --${name} must be a positive number, got '${value}'\n${usage}\n`);
  process.exit(2);
}
const healthyClients = positive('healthy', values.healthy);

if (values['per-attack'] || values.attack.length > 0) {
  const unknown = values.attack.filter((name) => !ATTACKS.some((a) => a.name === name));
  if (unknown.length > 0) {
    process.stderr.write(`soak: no attack named ${unknown.map((n) => `'${n}'`).join(', ')}; see --help\n`);
    process.exit(2);
  }
  const chosen = values.attack.length > 0 ? ATTACKS.filter((a) => values.attack.includes(a.name)) : ATTACKS;
  const durationMs = positive('seconds', values.seconds) * 1000;
  const runs = [];
  for (const attack of chosen) {
    process.stderr.write(`soak: ${attack.name} (${durationMs / 1000} s)\n`);
    runs.push({ attack, report: await runSoak({ durationMs, healthyClients, abusers: [attack.name] }) });
  }
  process.stdout.write(`${formatAttackReports(runs)}\n`);
  process.exitCode = runs.every((r) => metTargets(r.report, SOAK_TARGETS.attackPeakRssBytes)) ? 0 : 1;
} else {
  const report = await runSoak({ durationMs: positive('minutes', values.minutes) * 60_000, healthyClients });
  process.stdout.write(`${formatSoakReport(report)}\n`);
  process.exitCode = metTargets(report, SOAK_TARGETS.mixPeakRssBytes) ? 0 : 1;
}
