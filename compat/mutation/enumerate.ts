import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import type { Logger } from '@stryker-mutator/api/logging';
import { MUTATED_FOLDERS, type MutatedFolder, mutantId, type WireMutant } from './mutant.js';

/** The production sources of one folder: tests and declaration files are not the product (tsconfig.build.json's exclude). */
export function productionFiles(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** Stryker's warnings go to the caller's sink; its chatter does not belong in a CI log. */
function quietLogger(warn: (msg: string) => void): Logger {
  const none = () => undefined;
  return {
    isTraceEnabled: () => false,
    isDebugEnabled: () => false,
    isInfoEnabled: () => false,
    isWarnEnabled: () => true,
    isErrorEnabled: () => true,
    isFatalEnabled: () => true,
    trace: none,
    debug: none,
    info: none,
    warn: (m: string) => warn(m),
    error: (m: string) => warn(m),
    fatal: (m: string) => warn(m),
  };
}

/** Offsets of each line's first character, for Stryker's 0-based line and column. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

/**
 * Every mutant Stryker's instrumenter (the engine @stryker-mutator/core runs)
 * generates for the wire-relevant production code, in a fixed order. Only its
 * list of mutants is used, not its schemata: each mutant is later spliced into
 * a checkout on its own, so the build the gate makes holds exactly one mutant.
 */
export async function enumerateMutants(root: string, warn: (msg: string) => void = () => undefined): Promise<WireMutant[]> {
  const instrumenter = new Instrumenter(quietLogger(warn));
  const mutants: WireMutant[] = [];
  for (const folder of MUTATED_FOLDERS) {
    for (const file of productionFiles(root, folder)) {
      const content = readFileSync(join(root, file), 'utf8');
      const starts = lineStarts(content);
      const { mutants: found } = await instrumenter.instrument([{ name: file, content, mutate: true }], { plugins: null, ignorers: [], excludedMutations: [] });
      for (const m of found) {
        const start = starts[m.location.start.line]! + m.location.start.column;
        const end = starts[m.location.end.line]! + m.location.end.column;
        const at = { file, line: m.location.start.line + 1, column: m.location.start.column + 1, mutator: m.mutatorName, original: content.slice(start, end), replacement: m.replacement };
        mutants.push({ ...at, id: mutantId(at), folder: folder as MutatedFolder, start, end });
      }
    }
  }
  return mutants.sort((a, b) => (a.file !== b.file ? (a.file < b.file ? -1 : 1) : a.start - b.start || a.end - b.end || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
}
