import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { CompatError } from '../errors.js';
import { PAIRING_LABELS, type Finding } from '../rules/finding.js';
import type { ReportedFinding } from './root-causes.js';
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

/** Placeholder reason in a pasted entry: long enough for the schema, obviously unfinished. */
export const REASON_PLACEHOLDER = 'TODO: say why this break is intended';

/** The entry that would acknowledge `f`, ready to paste into compat/acknowledged-breaks.json. */
export function acknowledgementEntry(f: Finding): AcknowledgedBreak {
  return { ruleId: f.ruleId, direction: f.direction, subject: f.subject, reason: REASON_PLACEHOLDER };
}

export interface AcknowledgementOutcome {
  readonly failing: ReportedFinding[];
  readonly acknowledged: Array<{ finding: ReportedFinding; reason: string }>;
  readonly stale: AcknowledgedBreak[];
}

/**
 * Splits findings into failing and acknowledged. Acknowledging a root cause
 * acknowledges the findings it explains. Entries of a rule that ran and
 * matched nothing come back as stale (a rule that did not run, e.g. the
 * dynamic pass under --static-only, cannot prove an entry stale).
 */
export function applyAcknowledgements(findings: readonly ReportedFinding[], acks: readonly AcknowledgedBreak[], rulesRun: readonly string[]): AcknowledgementOutcome {
  const used = new Set<AcknowledgedBreak>();
  const reasonOf = new Map<string, string>();
  for (const f of findings) {
    const ack = acks.find((a) => matches(a, f));
    if (ack) {
      used.add(ack);
      reasonOf.set(f.id, ack.reason);
    }
  }
  const failing: ReportedFinding[] = [];
  const acknowledged: Array<{ finding: ReportedFinding; reason: string }> = [];
  for (const f of findings) {
    const own = reasonOf.get(f.id);
    const cause = f.causedBy === undefined ? undefined : findings.find((c) => c.id === f.causedBy);
    const inherited = cause && reasonOf.has(cause.id) ? `consequence of ${cause.ruleId} ${cause.subject}, acknowledged: ${reasonOf.get(cause.id)}` : undefined;
    const reason = own ?? inherited;
    if (reason !== undefined) acknowledged.push({ finding: f, reason });
    else failing.push(f);
  }
  return { failing, acknowledged, stale: acks.filter((a) => !used.has(a) && rulesRun.includes(a.ruleId)) };
}
