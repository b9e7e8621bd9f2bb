import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../rules/finding.js';

/** Where a finding's subject is declared in the working tree, for GitHub's `file=` and `line=`. */
export interface SourceLocation { readonly file: string; readonly line: number }

/** The tables a subject can name, as the working tree lays them out. */
const TABLES = {
  opcodes: 'src/codec/opcodes.ts',
  schemas: 'src/codec/schemas.ts',
  capabilities: 'src/capabilities/registry.ts',
} as const;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Returns a locator over the working tree's tables: an opcode (`SnapshotStart`)
 * points at its row in the opcode table, a field (`SnapshotStart.requestId`)
 * at its line in that opcode's schema, a capability at its registry row.
 * Anything it cannot place gets no location rather than a wrong one.
 */
export function sourceLocator(root: string): (f: Finding) => SourceLocation | undefined {
  const lines = (file: string): string[] => {
    try {
      return readFileSync(join(root, file), 'utf8').split('\n');
    } catch {
      return [];
    }
  };
  const opcodes = lines(TABLES.opcodes);
  const schemas = lines(TABLES.schemas);
  const capabilities = lines(TABLES.capabilities);
  const find = (text: readonly string[], pattern: RegExp, from = 0) => {
    const i = text.findIndex((l, n) => n >= from && pattern.test(l));
    return i < 0 ? undefined : i;
  };
  return (f) => {
    const capability = /^capability (\w+)$/.exec(f.subject)?.[1];
    if (capability) {
      const i = find(capabilities, new RegExp(`^\\s*${escape(capability)}: \\{`));
      return i === undefined ? undefined : { file: TABLES.capabilities, line: i + 1 };
    }
    const [opcode, field] = f.subject.split('.', 2) as [string, string | undefined];
    if (!/^\w+$/.test(opcode)) return undefined;
    const row = find(opcodes, new RegExp(`^\\s*${escape(opcode)}: \\{`));
    if (row === undefined) return undefined;
    const schema = /json\(s\.(\w+)\)/.exec(opcodes[row]!)?.[1];
    if (field && schema) {
      const start = find(schemas, new RegExp(`^export const ${escape(schema)} =`));
      const at = start === undefined ? undefined : find(schemas, new RegExp(`^\\s*${escape(field)}: `), start);
      if (start !== undefined) return { file: TABLES.schemas, line: (at ?? start) + 1 };
    }
    return { file: TABLES.opcodes, line: row + 1 };
  };
}
