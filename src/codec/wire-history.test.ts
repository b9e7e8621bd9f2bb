import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkWireHistory, type TableOpcode, unrecordedOpcodes, type WireHistory } from '../../scripts/wire-history.js';
import { allOpcodes } from './index.js';

const history = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'wire-history.json'), 'utf8')) as WireHistory;
const table: TableOpcode[] = allOpcodes().map(({ code, name, retired }) => ({ code, name, ...(retired ? { retired } : {}) }));

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

  it('the current table has nothing unrecorded (record a new opcode in wire-history.json when it ships)', () => {
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
    // InputAck moved to 19 and 18 given to a new opcode.
    const findings = checkWireHistory(
      history,
      tampered((ops) => [...ops.map((op) => (op.code === 18 ? { ...op, code: 19 } : op)), { code: 18, name: 'Bell' }]),
    );
    expect(findings.map((f) => [f.rule, f.code])).toEqual([['OPCODE_NUMBER_REUSED', 18]]);
  });

  it('a retired number that comes back to life is OPCODE_REVIVED', () => {
    const retiredHistory: WireHistory = { opcodes: history.opcodes.map((op) => (op.code === 15 ? { ...op, retired: true } : op)) };
    expect(checkWireHistory(retiredHistory, table).map((f) => f.rule)).toEqual(['OPCODE_REVIVED']);
  });
});
