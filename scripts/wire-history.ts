/**
 * Opcode numbers are permanent. fixtures/wire-history.json records every
 * number that shipped; these pure checks compare it with an opcode table so a
 * test can run them on the real table and on a tampered copy.
 */
export interface RecordedOpcode {
  readonly code: number;
  readonly name: string;
  readonly since: number;
  readonly retired?: boolean;
}

export interface WireHistory {
  readonly opcodes: readonly RecordedOpcode[];
}

/** The fields of an opcode table entry the history cares about. */
export interface TableOpcode {
  readonly code: number;
  readonly name: string;
  readonly retired?: boolean;
}

export const HISTORY_RULES = {
  OPCODE_DROPPED: 'a recorded opcode number is missing from the table; retire it (retired: true) instead of deleting it',
  OPCODE_RENAMED: 'a recorded number carries a new name and the recorded name is gone',
  OPCODE_NUMBER_REUSED: 'a recorded number carries another opcode while the recorded name now lives at a different number',
  OPCODE_REVIVED: 'an opcode recorded as retired is live again in the table; give the feature a new number',
} as const;

export type HistoryRule = keyof typeof HISTORY_RULES;

export interface HistoryFinding {
  readonly rule: HistoryRule;
  readonly code: number;
  readonly message: string;
}

export function checkWireHistory(history: WireHistory, table: readonly TableOpcode[]): HistoryFinding[] {
  const byCode = new Map(table.map((op) => [op.code, op]));
  const byName = new Map(table.map((op) => [op.name, op]));
  const findings: HistoryFinding[] = [];
  for (const recorded of history.opcodes) {
    const current = byCode.get(recorded.code);
    const label = `opcode ${recorded.code} (${recorded.name})`;
    if (!current) {
      findings.push({ rule: 'OPCODE_DROPPED', code: recorded.code, message: `${label} is recorded in wire-history.json but missing from the table` });
    } else if (current.name !== recorded.name) {
      const moved = byName.get(recorded.name);
      findings.push(
        moved
          ? { rule: 'OPCODE_NUMBER_REUSED', code: recorded.code, message: `${label} is now ${current.name}, and ${recorded.name} moved to ${moved.code}` }
          : { rule: 'OPCODE_RENAMED', code: recorded.code, message: `${label} is now named ${current.name}` },
      );
    } else if (recorded.retired && !current.retired) {
      findings.push({ rule: 'OPCODE_REVIVED', code: recorded.code, message: `${label} was retired and is live again` });
    }
  }
  return findings.sort((a, b) => a.code - b.code || a.rule.localeCompare(b.rule));
}

/** Table opcodes not yet in the history: new, unreleased numbers (recorded when they ship). */
export function unrecordedOpcodes<T extends TableOpcode>(history: WireHistory, table: readonly T[]): T[] {
  const recorded = new Set(history.opcodes.map((op) => op.code));
  return table.filter((op) => !recorded.has(op.code));
}

/**
 * The history as `npm run regen` leaves it: every table opcode not yet
 * recorded is appended (code, name, since), and one the table retired is
 * marked retired. A recorded number or name is never rewritten: a table that
 * moved or renamed one is checkWireHistory's finding, which regen must not hide.
 */
export function recordNewOpcodes(history: WireHistory, table: ReadonlyArray<TableOpcode & { readonly since: number }>): WireHistory {
  const retiredInTable = new Set(table.filter((op) => op.retired).map((op) => op.code));
  const recorded = history.opcodes.map((op) => (retiredInTable.has(op.code) && !op.retired ? { ...op, retired: true } : op));
  const added = unrecordedOpcodes(history, table).map((op) => ({ code: op.code, name: op.name, since: op.since, ...(op.retired ? { retired: true } : {}) }));
  return { ...history, opcodes: [...recorded, ...added].sort((a, b) => a.code - b.code) };
}
