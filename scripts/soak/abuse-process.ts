/**
 * Runs the abusers in their own process, so their floods never delay the
 * healthy typists' event loop: the typists then time the server, not the soak.
 * argv: url token durationMs skipJson; prints one JSON line of tallies.
 */
import { ABUSERS } from './abusers.js';

const [url, token, durationMs, skipJson] = process.argv.slice(2) as [string, string, string, string];
const skip = JSON.parse(skipJson) as string[];
const until = performance.now() + Number(durationMs);
const abusers = ABUSERS.filter((a) => !skip.includes(a.name));
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
