#!/usr/bin/env node
import('../dist/src/cli/main.js')
  .then((m) => m.main(process.argv.slice(2)))
  .then((code) => { process.exitCode = code; })
  .catch((e) => { console.error(`termwire: internal error: ${e?.stack ?? e}`); process.exitCode = 2; });
