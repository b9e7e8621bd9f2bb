import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPCODES } from '../../src/codec/opcodes.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { SEND_BOUNDS } from '../../src/host/send-bounds.js';

const root = join(import.meta.dirname, '..', '..');
const hostLimitsDoc = readFileSync(join(root, 'docs', 'host-limits.md'), 'utf8');

/** The text of every test of the host's and the client's code, this file left out. */
function sideTests(): string {
  const dirs = ['test/host', 'test/client', 'src/host', 'src/client'];
  return dirs
    .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts') && !f.endsWith('send-bounds.test.ts')).map((f) => readFileSync(join(root, dir, f), 'utf8')))
    .join('\n');
}

describe('every frame the host can be made to send has a bound', () => {
  it('names an option of HostLimits that docs/host-limits.md documents, for each host-sent opcode', () => {
    const hostSent = Object.values(OPCODES).filter((o) => o.direction === 'hostToClient').map((o) => o.name).sort();
    expect(Object.keys(SEND_BOUNDS).sort()).toEqual(hostSent);
    for (const [opcode, bound] of Object.entries(SEND_BOUNDS)) {
      expect(DEFAULT_HOST_OPTIONS, `${opcode}: ${bound.limit} is not a HostLimits option`).toHaveProperty(bound.limit);
      expect(hostLimitsDoc, `${opcode}: docs/host-limits.md does not document ${bound.limit}`).toContain(`\`${bound.limit}\``);
    }
  });

  it('a gated frame the host sends has a test of its own beside the host or client code (a new opcode is not done without one)', () => {
    const tests = sideTests();
    const gated = Object.values(OPCODES).filter((o) => o.direction === 'hostToClient' && 'gatedBy' in o);
    expect(gated.length).toBeGreaterThan(0);
    for (const o of gated) expect(tests, `no test under test/host, test/client, src/host or src/client names ${o.name}`).toMatch(new RegExp(`\\b${o.name}\\b`));
  });
});
