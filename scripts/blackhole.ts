// The full-size real-network black hole: 200 tokens at 0.5 s, a 65 s black hole.
// Usage (root): npx tsx scripts/blackhole.ts [--tokens N] [--interval MS] [--hole MS]
import { parseArgs } from 'node:util';
import { blackholeUnavailable, runBlackhole } from './blackhole/run.js';

const { values } = parseArgs({ options: { tokens: { type: 'string', default: '200' }, interval: { type: 'string', default: '500' }, hole: { type: 'string', default: '65000' }, unsequenced: { type: 'boolean', default: false } } });
const why = blackholeUnavailable();
if (why) {
  process.stderr.write(`blackhole: cannot run: ${why}\n`);
  process.exit(2);
}
const tokens = Number(values.tokens);
const intervalMs = Number(values.interval);
const result = await runBlackhole({ tokens, intervalMs, holeStartMs: 10_000, holeMs: Number(values.hole), timeoutMs: tokens * intervalMs + Number(values.hole) + 120_000, unsequenced: values.unsequenced, log: (l) => process.stderr.write(`${l}\n`) });
const { events, ...figures } = result;
process.stdout.write(`${JSON.stringify({ unsequenced: values.unsequenced, holeMs: Number(values.hole), intervalMs, ...figures, disconnects: events.filter((e) => e.startsWith('event disconnected')).length })}\n`);
process.exit(figures.lost + figures.duplicated + figures.reordered + figures.mangled === 0 ? 0 : 1);
