/**
 * Runs the abusers in their own process, so their floods never delay the
 * healthy typists' event loop: the typists then time the server, not the soak.
 * argv: url token durationMs namesJson; prints one JSON line of tallies.
 */
import { ABUSERS } from './abusers.js';
import { ATTACKS } from './attacks.js';

const [url, token, durationMs, namesJson] = process.argv.slice(2) as [string, string, string, string];
const names = JSON.parse(namesJson) as string[];
const until = performance.now() + Number(durationMs);
const abusers = [...ABUSERS, ...ATTACKS].filter((a) => names.includes(a.name));
const tallies = abusers.map((a) => ({ name: a.name, defendedBy: a.defendedBy, outcomes: {} as Record<string, number> }));
await Promise.all(
  abusers.map(async (abuser, i) => {
    const outcomes = tallies[i]!.outcomes;
    const ctx = { url, token, until, tally: (o: string) => (outcomes[o] = (outcomes[o] ?? 0) + 1) };
    while (performance.now() < until) {
      try {
        await abuser.run(ctx);
      } catch (error) {
        ctx.tally(`abuser failed: ${error instanceof Error ? error.message.slice(0, 60) : String(error)}`);
      }
    }
  }),
);
process.stdout.write(`${JSON.stringify(tallies)}\n`);
process.exit(0); // sockets the abusers left behind must not keep it alive
