/** `npm run mutation`: the gate's own mutation score (compat/mutation/cli.ts). */
import { main } from '../compat/mutation/cli.js';

process.exitCode = await main(process.argv.slice(2));
