/**
 * `npm run peer-profile -- <dir> [--top N] [--json]`
 *
 * Where a gate run's peer CPU went: run the gate with
 * TERMWIRE_PEER_CPU_PROFILE=<dir>, then this sums the profiles its peers left,
 * by role and by function.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { summariseProfiles } from './lib/cpu-profile-summary.js';

const HELP = `Usage: npm run peer-profile -- <dir> [--top N] [--json]

Sums the CPU profiles a gate run's peers left in <dir> (run the gate with
TERMWIRE_PEER_CPU_PROFILE=<dir>: every peer then starts under node --cpu-prof
and leaves a directory of profiles, one per thread, when it exits; a peer
killed or given up leaves none). Prints, per role, the sampled CPU time and
the N functions (default 15) with the most self time. --json prints the same
for machines. Exits 2 when <dir> holds no profile.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '15' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
});
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const dir = positionals[0];
const top = Number(values.top);
if (!dir || positionals.length > 1 || !(Number.isInteger(top) && top > 0)) {
  process.stderr.write(`peer-profile: give one directory and --top a whole number above 0\n\n${HELP}\n`);
  process.exit(2);
}
if (!existsSync(dir)) {
  process.stderr.write(`peer-profile: ${dir} does not exist\n`);
  process.exit(2);
}
const groups = summariseProfiles(dir, top);
if (!groups.some((g) => g.profiles > 0)) {
  process.stderr.write(`peer-profile: no .cpuprofile under ${dir} (was the gate run with TERMWIRE_PEER_CPU_PROFILE=${dir}?)\n`);
  process.exit(2);
}
if (values.json) {
  process.stdout.write(`${JSON.stringify(groups, null, 2)}\n`);
} else {
  for (const g of groups) {
    const unreadable = g.unreadable ? `, ${g.unreadable} unreadable and left out` : '';
    process.stdout.write(`${g.group}: ${(g.ms / 1000).toFixed(2)} CPU-s sampled in ${g.peers} peer(s), ${g.profiles} thread profile(s)${unreadable}\n`);
    for (const f of g.top) process.stdout.write(`  ${f.ms.toFixed(0).padStart(7)} ms  ${(100 * f.ms / g.ms).toFixed(1).padStart(5)}%  ${f.where}\n`);
  }
}
