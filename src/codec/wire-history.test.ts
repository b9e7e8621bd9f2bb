import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkWireHistory, recordNewOpcodes, type TableOpcode, unrecordedOpcodes, type WireHistory } from '../../scripts/wire-history.js';
import { allOpcodes } from './index.js';

const history = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'wire-history.json'), 'utf8')) as WireHistory;
const table: TableOpcode[] = allOpcodes().map(({ code, name, retired }) => ({ code, name, ...(retired ? { retired } : {}) }));
/** The last recorded number, and the first no opcode has had: a test that adds an opcode uses it, whatever ships next. */
const lastCode = Math.max(...history.opcodes.map((op) => op.code));
const freeCode = lastCode + 1;

function tampered(edit: (ops: TableOpcode[]) => TableOpcode[]): TableOpcode[] {
  return edit(table.map((op) => ({ ...op })));
}

describe('opcode numbers are permanent (fixtures/wire-history.json)', () => {
  it('records opcode numbers without gaps, from 1 up to the last one recorded', () => {
    const codes = history.opcodes.map((op) => op.code);
    expect(codes).toEqual(Array.from({ length: codes.length }, (_, i) => i + 1));
  });

  it('the current table keeps every recorded number under its recorded name', () => {
    expect(checkWireHistory(history, table)).toEqual([]);
  });

  it('the current table has nothing unrecorded (npm run regen records a new opcode)', () => {
    expect(unrecordedOpcodes(history, table)).toEqual([]);
  });

  it('a dropped opcode is OPCODE_DROPPED', () => {
    const findings = checkWireHistory(history, tampered((ops) => ops.filter((op) => op.name !== 'WriteUnavailable')));
    expect(findings.map((f) => [f.rule, f.code])).toEqual([['OPCODE_DROPPED', 17]]);
  });

  it('a retired opcode that stays in the table passes', () => {
    const retired = tampered((ops) => ops.map((op) => (op.code === 17 ? { ...op, retired: true } : op)));
    expect(checkWireHistory(history, retired)).toEqual([]);
  });

  it('a renamed opcode is OPCODE_RENAMED', () => {
    const findings = checkWireHistory(history, tampered((ops) => ops.map((op) => (op.code === 13 ? { ...op, name: 'OutputAck' } : op))));
    expect(findings.map((f) => [f.rule, f.code])).toEqual([['OPCODE_RENAMED', 13]]);
    expect(findings[0]?.message).toContain('OutputAck');
  });

  it('a number reused for another opcode is OPCODE_NUMBER_REUSED', () => {
    // The last opcode moved to a free number and its number given to a new opcode.
    const findings = checkWireHistory(
      history,
      tampered((ops) => [...ops.map((op) => (op.code === lastCode ? { ...op, code: freeCode } : op)), { code: lastCode, name: 'NewOpcode' }]),
    );
    expect(findings.map((f) => [f.rule, f.code])).toEqual([['OPCODE_NUMBER_REUSED', lastCode]]);
  });

  it('regen records a new opcode and a retirement, and never rewrites a recorded number or name', () => {
    const withSince = (ops: TableOpcode[]) => ops.map((op) => ({ ...op, since: 1 }));
    const grown = withSince(tampered((ops) => [...ops.map((op) => (op.code === 17 ? { ...op, retired: true } : op)), { code: freeCode, name: 'NewOpcode' }]));
    const next = recordNewOpcodes(history, grown);
    expect(next.opcodes.at(-1)).toEqual({ code: freeCode, name: 'NewOpcode', since: 1 });
    expect(next.opcodes.find((op) => op.code === 17)?.retired).toBe(true);
    expect(unrecordedOpcodes(next, grown)).toEqual([]);
    // A renamed opcode stays recorded under its shipped name, so the check still sees the rename.
    const renamed = recordNewOpcodes(history, withSince(tampered((ops) => ops.map((op) => (op.code === 13 ? { ...op, name: 'OutputAck' } : op)))));
    expect(renamed.opcodes.find((op) => op.code === 13)?.name).toBe('Ack');
    expect(recordNewOpcodes(history, withSince(table))).toEqual(history);
  });

  it('a retired number that comes back to life is OPCODE_REVIVED', () => {
    const retiredHistory: WireHistory = { opcodes: history.opcodes.map((op) => (op.code === 15 ? { ...op, retired: true } : op)) };
    expect(checkWireHistory(retiredHistory, table).map((f) => f.rule)).toEqual(['OPCODE_REVIVED']);
  });
});
