#!/usr/bin/env node
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('termwire: this checkout is not built yet (dist/ is missing); run `npm ci` (it builds) or `npm run build`');
  process.exit(2);
}
import(entry.href)
  .then((m) => m.main(process.argv.slice(2)))
  .then((code) => { process.exitCode = code; })
  // Commands turn every usage and environment error into one line and an exit code; what lands here is a bug.
  .catch((e) => { console.error(`termwire: internal error: a bug in termwire; please report it with this output.\n${e?.stack ?? e}`); process.exitCode = 2; });
