#!/usr/bin/env node
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
// The gate's command comes from the gate, above the protocol stack: the stack's CLI never imports it.
const gate = new URL('../dist/compat/command.js', import.meta.url);
// The build's bundle of both (compat/termwire-entry.ts) starts in half the time of their modules.
const bundle = new URL('../dist/bundle/cli.js', import.meta.url);
if (!existsSync(entry) || !existsSync(gate)) {
  console.error('termwire: this checkout is not built yet (dist/ is missing); run `npm ci` (it builds) or `npm run build`');
  process.exit(2);
}
(existsSync(bundle) ? import(bundle.href).then((both) => [both, both]) : Promise.all([import(entry.href), import(gate.href)]))
  .then(([cli, { COMPAT_COMMAND }]) => cli.main(process.argv.slice(2), { compat: COMPAT_COMMAND }))
  .then((code) => { process.exitCode = code; })
  // Commands turn every usage and environment error into one line and an exit code; what lands here is a bug.
  .catch((e) => { console.error(`termwire: internal error: a bug in termwire; please report it with this output.\n${e?.stack ?? e}`); process.exitCode = 2; });
