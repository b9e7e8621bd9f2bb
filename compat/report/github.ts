import { brief, ghData, ghProperty } from './escape.js';
import { coverageAnnotations } from './coverage.js';
import { evidenceLines, fixLine, notReproducedLine, pasteableAcknowledgement } from './finding-lines.js';
import type { GateReport } from './model.js';
import { describeEntry, isoDay, MAX_EXPIRY_DAYS } from './acknowledged.js';
import type { ReportedFinding } from './root-causes.js';

function title(f: ReportedFinding): string {
  return `${f.ruleId} (${f.direction}${f.step ? `, ${f.step}${f.occurrence ? `/${f.occurrence}` : ''}` : ''})`;
}

function detail(f: ReportedFinding, all: readonly ReportedFinding[], today: string): string {
  const cause = f.causedBy ? all.find((c) => c.id === f.causedBy) : undefined;
  return [
    `${f.subject}: ${f.message}`,
    ...(cause ? [`consequence of ${cause.ruleId} ${cause.subject}: fix that first`] : []),
    ...evidenceLines(f).map((l) => l.text),
    ...(cause ? [] : [fixLine(f), `acknowledge if intended: ${pasteableAcknowledgement(f, today)}`]),
  ].join('\n');
}

/**
 * GitHub Actions workflow commands: ::error per finding, root causes before
 * the findings they explain (GitHub shows only the first 10 errors of a
 * step), ::error per expired acknowledgement that still matches, ::notice
 * per acknowledged finding, ::warning per stale or soon-expiring entry.
 */
export function renderGithubAnnotations(report: GateReport): string {
  const lines: string[] = [];
  if (report.error) {
    const t = report.error.kind === 'internalError' ? 'termwire compat: internal error (a bug in the gate; please report it)' : 'termwire compat could not compare';
    lines.push(`::error title=${ghProperty(t)}::${ghData(report.error.message)}`);
  }
  const causesFirst = [...report.findings.filter((f) => !f.causedBy), ...report.findings.filter((f) => f.causedBy)];
  const at = (f: ReportedFinding) => (f.location ? `file=${ghProperty(f.location.file)},line=${f.location.line},` : '');
  const today = report.date ?? isoDay(new Date());
  for (const f of causesFirst) lines.push(`::error ${at(f)}title=${ghProperty(title(f))}::${ghData(detail(f, report.findings, today))}`);
  for (const e of report.expiredAcknowledgements ?? []) {
    lines.push(`::error file=compat/acknowledged-breaks.json,title=${ghProperty('expired acknowledgement')}::${ghData(`${describeEntry(e)} (owner ${e.owner}) expired on ${e.expires}: ${e.findings.join(', ')} fail again\nfix the break, or renew "expires" (at most ${MAX_EXPIRY_DAYS} days ahead) under review`)}`);
  }
  for (const a of report.acknowledged) lines.push(`::notice title=${ghProperty(`acknowledged ${title(a.finding)}`)}::${ghData(`${a.finding.subject}: ${a.finding.message}\nreason: ${a.reason}\nowner ${a.owner}, until ${a.expires}`)}`);
  for (const s of report.staleAcknowledgements) {
    lines.push(`::warning file=compat/acknowledged-breaks.json,title=${ghProperty('stale acknowledgement')}::${ghData(`${describeEntry(s)} matched nothing (${s.unmatched}); remove it`)}`);
  }
  for (const e of report.expiringAcknowledgements ?? []) {
    lines.push(`::warning file=compat/acknowledged-breaks.json,title=${ghProperty('acknowledgement expires soon')}::${ghData(`${describeEntry(e)} (owner ${e.owner}) expires on ${e.expires}, in ${e.daysLeft} day(s): renew it before then`)}`);
  }
  for (const f of report.notReproduced ?? []) lines.push(`::warning title=${ghProperty(`not reproduced ${f.ruleId}`)}::${ghData(notReproducedLine(f))}`);
  lines.push(...coverageAnnotations(report.coverage ?? []));
  return lines.join('\n') + (lines.length ? '\n' : '');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const evidenceCell = (f: ReportedFinding, key: 'before' | 'after') => (key in f.evidence ? cell(brief(f.evidence[key], 80)) : '');

/** The Markdown appended to $GITHUB_STEP_SUMMARY, in report order. */
export function renderStepSummary(report: GateReport): string {
  const head = report.error
    ? `### termwire compat: ${report.error.kind === 'internalError' ? 'internal error' : 'could not compare'}\n\n\`\`\`\n${report.error.message}\n\`\`\`\n`
    : `### termwire compat: ${report.status === 'compatible' ? '✅ compatible' : '❌ incompatible'}\n\nAgainst ${report.baselines.map((b) => `\`${b.label}\``).join(', ')}${report.staticOnly ? ' (static pass only)' : ''}${report.passes ? ` (passes ${report.passes.join(', ')} only)` : ''}.\n`;
  if (!report.findings.length && !report.acknowledged.length) return head + '\n';
  const rows = [
    '| id | rule | direction | step | subject | expected | observed | caused by |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...report.findings.map((f) => `| ${f.id} | ${f.ruleId} | ${f.direction} | ${f.step ?? ''}${f.occurrence ? ` (${f.occurrence})` : ''} | ${cell(f.subject)} | ${evidenceCell(f, 'before')} | ${evidenceCell(f, 'after')} | ${f.causedBy ?? ''} |`),
    ...report.acknowledged.map((a) => `| ${a.finding.id} | ${a.finding.ruleId} (acknowledged) | ${a.finding.direction} | ${a.finding.step ?? ''} | ${cell(a.finding.subject)} | ${cell(a.reason)} | | ${a.finding.causedBy ?? ''} |`),
  ];
  // An expired acknowledgement always comes with the findings it no longer accepts.
  const expired = (report.expiredAcknowledgements ?? []).map((e) => `- expired acknowledgement ${cell(describeEntry(e))} (owner ${cell(e.owner)}) expired on ${e.expires}: ${e.findings.join(', ')} fail again\n`).join('');
  return `${head}\n${rows.join('\n')}\n\n${expired ? `${expired}\n` : ''}`;
}
