import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadViolationFixtures } from './helpers/violation-fixtures.js';

// Each planted break edits the sources by anchor. An anchor that a refactor
// moved makes its fixture fail only deep in the self-test, minutes in: here
// every anchor is checked against the working tree in milliseconds.
const root = join(import.meta.dirname, '..', '..');

describe('every violation fixture still finds what it edits', () => {
  for (const fixture of loadViolationFixtures()) {
    it(fixture.name, () => {
      for (const edit of fixture.edits) {
        const source = readFileSync(join(root, edit.file), 'utf8');
        const count = source.split(edit.find).length - 1;
        expect(count, `${edit.file}: ${JSON.stringify(edit.find)} (update fixtures/violations/${fixture.name}.json)`).toBe(1);
      }
    });
  }
});
