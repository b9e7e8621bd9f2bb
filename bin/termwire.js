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
  .catch((e) => { console.error(`termwire: internal error: ${e?.stack ?? e}`); process.exitCode = 2; });
