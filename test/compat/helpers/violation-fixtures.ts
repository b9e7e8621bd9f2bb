import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** One planted break: edits to a copy of the project, and what the gate must say about it. */
export const violationFixtureSchema = z.object({
  description: z.string(),
  edits: z.array(z.object({ file: z.string(), find: z.string(), replace: z.string() })).min(1),
  /** Extra gate options, e.g. an explore seed whose schedule walks the broken path. */
  args: z.array(z.string()).optional(),
  /**
   * A break's fixture walks the script pass only (`--passes script`), plus the
   * passes named here: where the break shows. The self-test proves the claim,
   * since a break its passes do not show fails the fixture.
   */
  passes: z.array(z.enum(['pty', 'restart', 'stream', 'lifetime'])).optional(),
  expect: z.object({
    exit: z.union([z.literal(0), z.literal(1)]),
    findings: z.array(z.object({ ruleId: z.string(), direction: z.string().optional(), step: z.string().optional(), occurrence: z.string().optional(), subject: z.string().optional() })),
    /** Findings that must not be reported: a false alarm the fixture guards against. */
    absent: z.array(z.object({ ruleId: z.string(), direction: z.string().optional(), step: z.string().optional() })).optional(),
    /** Findings the first walk must have seen and the confirming walk not: reported as not reproduced, never failing. */
    notReproduced: z.array(z.object({ ruleId: z.string(), direction: z.string().optional(), step: z.string().optional() })).optional(),
    /** Texts the report's notes must hold, each in some note: what the run says it did (or did not) walk. */
    notes: z.array(z.string()).optional(),
    /** Every finding of this rule in a snapshot occurrence must be in this one: the comparison must not merge occurrences. */
    onlyOccurrence: z.object({ ruleId: z.string(), occurrence: z.string() }).optional(),
  }),
});

export type ViolationFixture = z.infer<typeof violationFixtureSchema> & { readonly name: string };

export const VIOLATIONS_DIR = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'violations');

export function loadViolationFixtures(dir = VIOLATIONS_DIR): ViolationFixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), ...violationFixtureSchema.parse(JSON.parse(readFileSync(join(dir, f), 'utf8'))) }));
}

/**
 * Applies a fixture's edits to a project copy. An anchor that is missing or
 * appears twice fails loudly: a fixture that silently plants nothing would
 * make the gate look like it caught a break it never saw.
 */
export function plantViolation(projectDir: string, fixture: ViolationFixture): void {
  for (const edit of fixture.edits) {
    const path = join(projectDir, edit.file);
    const source = readFileSync(path, 'utf8');
    const at = source.indexOf(edit.find);
    if (at < 0) throw new Error(`fixture ${fixture.name}: anchor not found in ${edit.file}: ${JSON.stringify(edit.find)}; update fixtures/violations/${fixture.name}.json`);
    if (source.indexOf(edit.find, at + 1) >= 0) throw new Error(`fixture ${fixture.name}: anchor appears more than once in ${edit.file}: ${JSON.stringify(edit.find)}`);
    writeFileSync(path, source.slice(0, at) + edit.replace + source.slice(at + edit.find.length));
  }
}
