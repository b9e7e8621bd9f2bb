/** Part of `npm run regen`: records in fixtures/wire-history.json the opcodes the table has and the history does not yet (recordNewOpcodes). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allOpcodes } from '../src/codec/index.js';
import { recordNewOpcodes, type WireHistory } from './wire-history.js';

const path = join(import.meta.dirname, '..', 'fixtures', 'wire-history.json');
const current = readFileSync(path, 'utf8');
const next = `${JSON.stringify(recordNewOpcodes(JSON.parse(current) as WireHistory, allOpcodes()), null, 2)}\n`;
if (next === current) {
  console.log('fixtures/wire-history.json is up to date');
} else {
  writeFileSync(path, next);
  console.log('fixtures/wire-history.json: new opcodes recorded');
}
