import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CompatError } from '../errors.js';
import { OCCURRENCES, STEP_NAMES } from '../recording.js';
import { PAIRING_LABELS, type Finding } from '../rules/finding.js';
import type { ReportedFinding } from './root-causes.js';
import { RULE_CATALOG, ruleEntry } from '../rules/catalog.js';

/** Where a project lists the breaks it intends, reviewed like code. */
export const ACKNOWLEDGED_BREAKS_PATH = 'compat/acknowledged-breaks.json';

/** An entry may not run longer than this: an intended break is accepted for a while, then looked at again. */
export const MAX_EXPIRY_DAYS = 180;
/** The expiry a pasted entry suggests. */
export const SUGGESTED_EXPIRY_DAYS = 90;
/** An entry in use this close to its expiry is reported, so it is renewed while the base branch's copy still holds it. */
export const EXPIRY_WARNING_DAYS = 14;

/** Placeholders in a pasted entry: obviously unfinished, and refused by the schema until replaced. */
export const REASON_PLACEHOLDER = 'TODO: say why this break is intended';
export const OWNER_PLACEHOLDER = 'TODO: who answers for this break';

const DAY_MS = 86_400_000;
/** A day as YYYY-MM-DD, in UTC. */
export const isoDay = (d: Date): string => d.toISOString().slice(0, 10);
export const addDays = (day: string, n: number): string => isoDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
const daysFrom = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
const isCalendarDay = (s: string) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && isoDay(new Date(`${s}T00:00:00Z`)) === s;

function entrySchema(today: string) {
  const latest = addDays(today, MAX_EXPIRY_DAYS);
  return z
    .strictObject({
      ruleId: z.enum(RULE_CATALOG.map((r) => r.id) as [string, ...string[]]),
      direction: z.enum(Object.values(PAIRING_LABELS) as [string, ...string[]]),
      /** The directions the entry covers: its root's and those of the findings the root explains. Absent: every direction they are in. */
      directions: z.array(z.enum(Object.values(PAIRING_LABELS) as [string, ...string[]])).min(1).optional(),
      /** Matches a finding's subject exactly. */
      subject: z.string().min(1, 'name the opcode, field or capability the finding names'),
      /** Matches a finding's step exactly: absent only for findings without one (every static finding). */
      step: z.enum(STEP_NAMES).optional(),
      /** When present, matches a finding's snapshot occurrence exactly. */
      occurrence: z.enum(OCCURRENCES).optional(),
      reason: z.string().min(10, 'say why the break is intended (at least 10 characters)').refine((r) => r !== REASON_PLACEHOLDER, 'replace the placeholder with why the break is intended'),
      owner: z.string().trim().min(1, 'name who answers for the break (a person or a team)').refine((o) => o !== OWNER_PLACEHOLDER, 'replace the placeholder with who answers for the break'),
      expires: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'expected a date as YYYY-MM-DD', abort: true }).refine(isCalendarDay, 'not a calendar date'),
    })
    .superRefine((e, ctx) => {
      if (ruleEntry(e.ruleId)?.pass === 'static' && (e.step !== undefined || e.occurrence !== undefined)) {
        ctx.addIssue({ code: 'custom', path: [e.step !== undefined ? 'step' : 'occurrence'], message: `${e.ruleId} is a static rule: its findings have no step or occurrence, so the entry would match nothing; remove it` });
      }
      if (e.directions && !e.directions.includes(e.direction)) {
        ctx.addIssue({ code: 'custom', path: ['directions'], message: `lists the directions the entry covers, and must include its own direction (${e.direction})` });
      }
      if (isCalendarDay(e.expires) && e.expires > latest) {
        ctx.addIssue({ code: 'custom', path: ['expires'], message: `${e.expires} is more than ${MAX_EXPIRY_DAYS} days ahead (latest allowed today: ${latest}); acknowledge for a while and renew under review` });
      }
    });
}

export type AcknowledgedBreak = z.infer<ReturnType<typeof entrySchema>>;

/** `RULE · direction · subject · step s (occurrence)`: how reports name an entry. */
export function describeEntry(a: Pick<AcknowledgedBreak, 'ruleId' | 'direction' | 'subject' | 'step' | 'occurrence'>): string {
  return [a.ruleId, a.direction, a.subject, ...(a.step ? [`step ${a.step}`] : [])].join(' · ') + (a.occurrence ? ` (${a.occurrence})` : '');
}

/** The fields an entry of the format before owner, expiry and step lacks, in words. */
function oldFormatHint(e: Record<string, unknown>): string | undefined {
  const missing = (['subject', 'owner', 'expires'] as const).filter((k) => !(k in e));
  if (!missing.length) return undefined;
  const what: Record<(typeof missing)[number], string> = {
    subject: '"subject" (the opcode, field or capability the finding names)',
    owner: '"owner" (who answers for the break)',
    expires: `"expires" (YYYY-MM-DD, at most ${MAX_EXPIRY_DAYS} days ahead)`,
  };
  const dynamic = typeof e.ruleId === 'string' && ruleEntry(e.ruleId)?.pass === 'dynamic' && !('step' in e);
  return `is in the old format: add ${missing.map((k) => what[k]).join(', ')}${dynamic ? ', and "step" (the journey step the finding names)' : ''}; the entry each finding's report suggests has every field`;
}

function label(raw: unknown): string {
  if (typeof raw !== 'object' || raw === null) return '';
  const e = raw as Record<string, unknown>;
  const s = (k: string) => (typeof e[k] === 'string' ? (e[k] as string) : undefined);
  return ` (${[s('ruleId') ?? '?', s('direction') ?? '?', ...(s('subject') ? [s('subject')] : []), ...(s('step') ? [`step ${s('step')}`] : [])].join(' · ')})`;
}

/**
 * Reads an acknowledgements file; an absent file acknowledges nothing.
 * `today` (YYYY-MM-DD) bounds how far ahead an expiry may be. Every problem
 * is one line of the BAD_ACKNOWLEDGEMENTS message, naming the entry.
 */
export function loadAcknowledgedBreaks(path: string, today: string, what = path): AcknowledgedBreak[] {
  if (!existsSync(path)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CompatError('BAD_ACKNOWLEDGEMENTS', `${what} is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new CompatError('BAD_ACKNOWLEDGEMENTS', `${what}: expected an array of entries`);
  const problems: string[] = [];
  const entries: AcknowledgedBreak[] = [];
  const schema = entrySchema(today);
  raw.forEach((e: unknown, i) => {
    const old = typeof e === 'object' && e !== null ? oldFormatHint(e as Record<string, unknown>) : undefined;
    if (old) return void problems.push(`entry ${i}${label(e)} ${old}`);
    const parsed = schema.safeParse(e);
    if (parsed.success) entries.push(parsed.data);
    else for (const issue of parsed.error.issues) problems.push(`entry ${i}${label(e)} ${issue.path.join('.') || '(entry)'}: ${issue.message}`);
  });
  if (problems.length) throw new CompatError('BAD_ACKNOWLEDGEMENTS', `${what}:\n  ${problems.join('\n  ')}`);
  return entries;
}

/** Which file the gate applied, when it is not the judged tree's own (`--acknowledgements`, as CI passes the base branch's copy). */
export interface AcknowledgementsFile {
  readonly path: string;
  readonly found: boolean;
  /** Entries in the judged tree's own compat/acknowledged-breaks.json that the applied file lacks: they apply once reviewed and merged. */
  readonly notApplied: number;
}

export interface LoadedAcknowledgements {
  readonly entries: AcknowledgedBreak[];
  /** The day expiry is judged against, YYYY-MM-DD (UTC). */
  readonly today: string;
  readonly file?: AcknowledgementsFile;
}

const entryKey = (a: AcknowledgedBreak) => JSON.stringify([a.ruleId, a.direction, a.directions, a.subject, a.step, a.occurrence, a.reason, a.owner, a.expires]);

/**
 * The gate's acknowledgements: `file` if given (CI passes the base branch's
 * copy, so a pull request cannot acknowledge its own break), else the judged
 * tree's compat/acknowledged-breaks.json. With another file, the judged
 * tree's own is still checked for format, so what a pull request adds is
 * valid once merged; it is never applied.
 */
export function loadGateAcknowledgements(root: string, file: string | undefined, now: Date): LoadedAcknowledgements {
  const today = isoDay(now);
  const own = join(root, ACKNOWLEDGED_BREAKS_PATH);
  if (file === undefined || resolve(file) === own) return { entries: loadAcknowledgedBreaks(own, today), today };
  const path = resolve(file);
  const entries = loadAcknowledgedBreaks(path, today, `the acknowledgements file ${path}`);
  const judged = loadAcknowledgedBreaks(own, today, `the judged tree's ${ACKNOWLEDGED_BREAKS_PATH} (checked, not applied)`);
  const applied = new Set(entries.map(entryKey));
  return { entries, today, file: { path, found: existsSync(path), notApplied: judged.filter((a) => !applied.has(entryKey(a))).length } };
}

/** The entry that would acknowledge `f`, ready to paste into compat/acknowledged-breaks.json once its placeholders are filled. */
export function acknowledgementEntry(f: Finding, today: string, directions: readonly string[] = [f.direction]): AcknowledgedBreak {
  const covered = [...new Set([f.direction, ...directions])];
  return {
    ruleId: f.ruleId,
    direction: f.direction,
    ...(covered.length > 1 ? { directions: covered } : {}),
    subject: f.subject,
    ...(f.step ? { step: f.step } : {}),
    ...(f.occurrence ? { occurrence: f.occurrence } : {}),
    reason: REASON_PLACEHOLDER,
    owner: OWNER_PLACEHOLDER,
    expires: addDays(today, SUGGESTED_EXPIRY_DAYS),
  };
}

/** Exact on every field the entry names; an entry without an occurrence covers every occurrence of its step. */
const matches = (a: AcknowledgedBreak, f: Finding) =>
  a.ruleId === f.ruleId && a.direction === f.direction && a.subject === f.subject && a.step === f.step && (a.occurrence === undefined || a.occurrence === f.occurrence);

/** Whether an entry covers a finding its root explains: in a direction it names, or in any when it names none. */
const covers = (a: AcknowledgedBreak, f: Finding) => a.directions === undefined || a.directions.includes(f.direction);

export interface AcknowledgedFinding {
  readonly finding: ReportedFinding;
  /** The entry that acknowledged it, as describeEntry names it: what the green report's one line per acknowledgement counts under. */
  readonly entry: string;
  readonly reason: string;
  /** The owner and expiry of the entry that acknowledged it (its root cause's, for a consequence). */
  readonly owner: string;
  readonly expires: string;
}
/** An entry that matched nothing, and which field failed to match. */
export type StaleAcknowledgement = AcknowledgedBreak & { readonly unmatched: string };
/** An expired entry that still matches findings: they fail again (ids in `findings`). */
export type ExpiredAcknowledgement = AcknowledgedBreak & { readonly findings: readonly string[] };
/** An entry in use that expires within EXPIRY_WARNING_DAYS. */
export type ExpiringAcknowledgement = AcknowledgedBreak & { readonly daysLeft: number };

export interface AcknowledgementOutcome {
  readonly failing: ReportedFinding[];
  readonly acknowledged: AcknowledgedFinding[];
  readonly stale: StaleAcknowledgement[];
  readonly expired: ExpiredAcknowledgement[];
  readonly expiring: ExpiringAcknowledgement[];
}

function listed(values: ReadonlyArray<string | undefined>, none: string): string {
  const unique = [...new Set(values.map((v) => v ?? none))];
  return unique.slice(0, 3).join(', ') + (unique.length > 3 ? ` and ${unique.length - 3} more` : '');
}

/** Why `a` matched none of `findings`: the first field, in entry order, that no finding of the same rule shares. */
function whyUnmatched(a: AcknowledgedBreak, findings: readonly Finding[]): string {
  const sameRule = findings.filter((f) => f.ruleId === a.ruleId);
  if (!sameRule.length) return `no ${a.ruleId} finding in this run`;
  const sameDirection = sameRule.filter((f) => f.direction === a.direction);
  if (!sameDirection.length) return `direction: ${a.ruleId} was found only in ${listed(sameRule.map((f) => f.direction), '?')}`;
  const sameSubject = sameDirection.filter((f) => f.subject === a.subject);
  if (!sameSubject.length) return `subject: ${a.ruleId} in ${a.direction} was found for ${listed(sameDirection.map((f) => f.subject), '?')}, not ${a.subject}`;
  const sameStep = sameSubject.filter((f) => f.step === a.step);
  if (!sameStep.length) return `step: ${a.subject} was found at ${listed(sameSubject.map((f) => f.step && `step ${f.step}`), 'no step')}, the entry names ${a.step ? `step ${a.step}` : 'no step'}`;
  const sameOccurrence = sameStep.filter((f) => a.occurrence === undefined || f.occurrence === a.occurrence);
  if (!sameOccurrence.length) return `occurrence: ${a.subject} was found in occurrence ${listed(sameStep.map((f) => f.occurrence), 'none')}, not ${a.occurrence}`;
  return 'an earlier entry acknowledges the same finding(s)';
}

/**
 * Splits findings into failing and acknowledged, judged on `today`
 * (YYYY-MM-DD). An entry holds through its `expires` day. Acknowledging a
 * root cause acknowledges the findings it explains. An expired entry that is
 * what would acknowledge a finding comes back as expired, and that finding
 * fails again. Entries of a rule that ran and matched nothing come back as
 * stale, with the field that failed to match (a rule that did not run, e.g.
 * the dynamic pass under --static-only, cannot prove an entry stale).
 */
export function applyAcknowledgements(findings: readonly ReportedFinding[], acks: readonly AcknowledgedBreak[], rulesRun: readonly string[], today: string): AcknowledgementOutcome {
  const live = acks.filter((a) => a.expires >= today);
  const used = new Set<AcknowledgedBreak>();
  const entryOf = new Map<string, AcknowledgedBreak>();
  for (const f of findings) {
    const ack = live.find((a) => matches(a, f));
    if (ack) {
      used.add(ack);
      entryOf.set(f.id, ack);
    }
  }
  const failing: ReportedFinding[] = [];
  const acknowledged: AcknowledgedFinding[] = [];
  for (const f of findings) {
    const own = entryOf.get(f.id);
    const cause = f.causedBy === undefined ? undefined : findings.find((c) => c.id === f.causedBy);
    const causeEntry = cause && entryOf.get(cause.id);
    if (own) acknowledged.push({ finding: f, entry: describeEntry(own), reason: own.reason, owner: own.owner, expires: own.expires });
    else if (cause && causeEntry && covers(causeEntry, f)) acknowledged.push({ finding: f, entry: describeEntry(causeEntry), reason: `consequence of ${cause.ruleId} ${cause.subject}, acknowledged: ${causeEntry.reason}`, owner: causeEntry.owner, expires: causeEntry.expires });
    else failing.push(f);
  }
  const expired: ExpiredAcknowledgement[] = [];
  const stale: StaleAcknowledgement[] = [];
  for (const a of acks) {
    if (used.has(a)) continue;
    const lapsed = a.expires < today;
    const hits = lapsed ? failing.filter((f) => matches(a, f)) : [];
    if (hits.length) expired.push({ ...a, findings: hits.map((f) => f.id) });
    else if (rulesRun.includes(a.ruleId)) {
      const matchedCovered = lapsed && findings.some((f) => matches(a, f));
      const why = matchedCovered ? 'a live entry acknowledges what it matches' : whyUnmatched(a, findings);
      stale.push({ ...a, unmatched: lapsed ? `${why}; it also expired on ${a.expires}` : why });
    }
  }
  const expiring = [...used].map((a) => ({ ...a, daysLeft: daysFrom(today, a.expires) })).filter((a) => a.daysLeft <= EXPIRY_WARNING_DAYS);
  return { failing, acknowledged, stale, expired, expiring };
}

/** The report fields the acknowledgements add besides findings, acknowledged and stale. */
export function acknowledgementReportFields(loaded: LoadedAcknowledgements, outcome: Pick<AcknowledgementOutcome, 'expired' | 'expiring'>) {
  return {
    date: loaded.today,
    ...(outcome.expired.length ? { expiredAcknowledgements: outcome.expired } : {}),
    ...(outcome.expiring.length ? { expiringAcknowledgements: outcome.expiring } : {}),
    ...(loaded.file ? { acknowledgementsFile: loaded.file } : {}),
  };
}
