import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { CompatError } from '../errors.js';
import { PAIRING_LABELS, type Finding } from '../rules/finding.js';
import { RULE_CATALOG } from '../rules/catalog.js';

/** Where a project lists the breaks it intends, reviewed like code. */
export const ACKNOWLEDGED_BREAKS_PATH = 'compat/acknowledged-breaks.json';

const entrySchema = z.object({
  ruleId: z.enum(RULE_CATALOG.map((r) => r.id) as [string, ...string[]]),
  direction: z.enum(Object.values(PAIRING_LABELS) as [string, ...string[]]),
  reason: z.string().min(10, 'say why the break is intended (at least 10 characters)'),
  /** Matches a finding's subject exactly; omitted, the entry covers the rule in that direction. */
  subject: z.string().optional(),
});
const fileSchema = z.array(entrySchema);

export type AcknowledgedBreak = z.infer<typeof entrySchema>;

export function loadAcknowledgedBreaks(path: string): AcknowledgedBreak[] {
  if (!existsSync(path)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CompatError('BAD_ACKNOWLEDGEMENTS', `${path} is not JSON: ${(e as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CompatError('BAD_ACKNOWLEDGEMENTS', `${path} ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}

const matches = (a: AcknowledgedBreak, f: Finding) =>
  a.ruleId === f.ruleId && a.direction === f.direction && (a.subject === undefined || a.subject === f.subject);

/**
 * Splits findings into failing and acknowledged. Entries of a rule that ran and
 * matched nothing come back as stale (a rule that did not run, e.g. the dynamic
 * pass under --static-only, cannot prove an entry stale).
 */
export function applyAcknowledgements(findings: readonly Finding[], acks: readonly AcknowledgedBreak[], rulesRun: readonly string[]) {
  const used = new Set<AcknowledgedBreak>();
  const failing: Finding[] = [];
  const acknowledged: Array<{ finding: Finding; reason: string }> = [];
  for (const f of findings) {
    const ack = acks.find((a) => matches(a, f));
    if (ack) {
      used.add(ack);
      acknowledged.push({ finding: f, reason: ack.reason });
    } else failing.push(f);
  }
  return { failing, acknowledged, stale: acks.filter((a) => !used.has(a) && rulesRun.includes(a.ruleId)) };
}
