import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { WireMutant } from './mutant.js';

/** Where the reviewed list lives, relative to the checkout. */
export const EQUIVALENTS_FILE = 'compat/mutation/equivalent-mutants.json';

const entrySchema = z.strictObject({
  file: z.string().min(1),
  line: z.number().int().positive(),
  /** Only where two mutants share file, line, mutator and replacement. */
  column: z.number().int().positive().optional(),
  mutator: z.string().min(1),
  replacement: z.string(),
  /** Why no peer of any version can tell the mutant from the original: the reviewer's argument. */
  why: z.string().trim().min(10),
});

const fileSchema = z.strictObject({ $comment: z.string().optional(), equivalents: z.array(entrySchema) });

export type EquivalentEntry = z.infer<typeof entrySchema>;

export class EquivalentsFileError extends Error {}

/** The reviewed equivalents; a malformed file is an error, never an empty list (that would quietly count them as survivors or kills). */
export function loadEquivalents(path: string): EquivalentEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new EquivalentsFileError(`${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new EquivalentsFileError(`${path} is not JSON: ${(e as Error).message}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new EquivalentsFileError(`${path}: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  return parsed.data.equivalents;
}

const describes = (e: EquivalentEntry, m: WireMutant) => e.file === m.file && e.line === m.line && e.mutator === m.mutator && e.replacement === m.replacement && (e.column === undefined || e.column === m.column);

export interface EquivalentsMatch {
  /** Mutant id to the reviewer's reason. */
  readonly why: ReadonlyMap<string, string>;
  /** Entries that name no mutant of today's source: the code moved, the entry needs a new review. */
  readonly stale: readonly EquivalentEntry[];
}

/** Each entry must name exactly one mutant of `all`; one that names several is refused (which one was reviewed?). */
export function matchEquivalents(entries: readonly EquivalentEntry[], all: readonly WireMutant[]): EquivalentsMatch {
  const why = new Map<string, string>();
  const stale: EquivalentEntry[] = [];
  for (const e of entries) {
    const hits = all.filter((m) => describes(e, m));
    if (hits.length > 1) throw new EquivalentsFileError(`${EQUIVALENTS_FILE}: the entry for ${e.file}:${e.line} ${e.mutator} ${JSON.stringify(e.replacement)} matches ${hits.length} mutants (columns ${hits.map((h) => h.column).join(', ')}); add "column"`);
    if (hits.length === 0) stale.push(e);
    else why.set(hits[0]!.id, e.why);
  }
  return { why, stale };
}
