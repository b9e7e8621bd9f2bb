import { createHash } from 'node:crypto';

/** The folders whose production code is mutated: everything a peer of another version meets on the wire. */
export const MUTATED_FOLDERS = ['src/codec', 'src/capabilities', 'src/host', 'src/client', 'src/delivery', 'src/transport'] as const;

export type MutatedFolder = (typeof MUTATED_FOLDERS)[number];

/** One mutant, as text to splice into one file: what the gate is asked to notice. */
export interface WireMutant {
  /** Stable across runs of the same source: file, position, mutator and a hash of what is replaced by what (two mutants may share a start and a replacement). */
  readonly id: string;
  /** Relative to the checkout, with forward slashes. */
  readonly file: string;
  readonly folder: MutatedFolder;
  /** 1-based, as an editor shows it. */
  readonly line: number;
  readonly column: number;
  /** Stryker's mutator name (EqualityOperator, StringLiteral, ...). */
  readonly mutator: string;
  /** The source text replaced, and what replaces it. */
  readonly original: string;
  readonly replacement: string;
  /** Character offsets of `original` in the file. */
  readonly start: number;
  readonly end: number;
}

export function mutantId(m: Pick<WireMutant, 'file' | 'line' | 'column' | 'mutator' | 'original' | 'replacement'>): string {
  const hash = createHash('sha256').update(m.original).update('\0').update(m.replacement).digest('hex').slice(0, 8);
  return `${m.file}:${m.line}:${m.column}:${m.mutator}:${hash}`;
}

/** The file's text with the mutant spliced in; refuses a file that no longer holds the original text there. */
export function applyMutant(source: string, m: WireMutant): string {
  const found = source.slice(m.start, m.end);
  if (found !== m.original) throw new Error(`${m.file}:${m.line}:${m.column}: expected ${JSON.stringify(m.original)} at the mutant, found ${JSON.stringify(found)}`);
  return source.slice(0, m.start) + m.replacement + source.slice(m.end);
}

/** How a survivor or an error is shown for triage: where, which mutator, and the change in one line. */
export function describeMutant(m: WireMutant): string {
  const oneLine = (s: string) => {
    const flat = s.replace(/\s+/g, ' ').trim();
    return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
  };
  return `${m.file}:${m.line}:${m.column} ${m.mutator}: ${oneLine(m.original)} -> ${oneLine(m.replacement)}`;
}
