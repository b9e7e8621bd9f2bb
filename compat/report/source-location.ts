import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gatedFrameNotNegotiated } from '../rules/dynamic/gated-frame.js';
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
    if (f.ruleId === gatedFrameNotNegotiated.id) {
      const site = unguardedSendSite(root, f.subject);
      if (site) return site;
    }
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

/**
 * A gated frame sent without negotiation was sent by hand: the one send of
 * that opcode in the sources with no capability check on its line is where
 * to look. Ambiguous (none, or several), the opcode's row is the answer.
 */
function unguardedSendSite(root: string, opcode: string): SourceLocation | undefined {
  if (!/^\w+$/.test(opcode)) return undefined;
  const send = new RegExp(`\\bsend\\(\\s*'${opcode}'`);
  const sites: SourceLocation[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
          if (send.test(line) && !/hasCapability|negotiated|echoed/.test(line)) sites.push({ file: relative(root, path), line: i + 1 });
        });
      }
    }
  };
  walk(join(root, 'src'));
  return sites.length === 1 ? sites[0] : undefined;
}
