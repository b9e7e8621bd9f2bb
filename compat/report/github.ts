import { brief, ghData, ghProperty } from './escape.js';
import { coverageAnnotations } from './coverage.js';
import { evidenceLines, fixLine, pasteableAcknowledgement } from './finding-lines.js';
import type { GateReport } from './model.js';
import type { ReportedFinding } from './root-causes.js';

function title(f: ReportedFinding): string {
  return `${f.ruleId} (${f.direction}${f.step ? `, ${f.step}${f.occurrence ? `/${f.occurrence}` : ''}` : ''})`;
}

function detail(f: ReportedFinding, all: readonly ReportedFinding[]): string {
  const cause = f.causedBy ? all.find((c) => c.id === f.causedBy) : undefined;
  return [
    `${f.subject}: ${f.message}`,
    ...(cause ? [`consequence of ${cause.ruleId} ${cause.subject}: fix that first`] : []),
    ...evidenceLines(f).map((l) => l.text),
    ...(cause ? [] : [fixLine(f), `acknowledge if intended: ${pasteableAcknowledgement(f)}`]),
  ].join('\n');
}

/**
 * GitHub Actions workflow commands: ::error per finding, root causes before
 * the findings they explain (GitHub shows only the first 10 errors of a
 * step), ::notice per acknowledged one, ::warning per stale entry.
 */
export function renderGithubAnnotations(report: GateReport): string {
  const lines: string[] = [];
  if (report.error) {
    const t = report.error.kind === 'internalError' ? 'termwire compat: internal error (a bug in the gate; please report it)' : 'termwire compat could not compare';
    lines.push(`::error title=${ghProperty(t)}::${ghData(report.error.message)}`);
  }
  const causesFirst = [...report.findings.filter((f) => !f.causedBy), ...report.findings.filter((f) => f.causedBy)];
  const at = (f: ReportedFinding) => (f.location ? `file=${ghProperty(f.location.file)},line=${f.location.line},` : '');
  for (const f of causesFirst) lines.push(`::error ${at(f)}title=${ghProperty(title(f))}::${ghData(detail(f, report.findings))}`);
  for (const a of report.acknowledged) lines.push(`::notice title=${ghProperty(`acknowledged ${title(a.finding)}`)}::${ghData(`${a.finding.subject}: ${a.finding.message}\nreason: ${a.reason}`)}`);
  for (const s of report.staleAcknowledgements) {
    lines.push(`::warning file=compat/acknowledged-breaks.json,title=${ghProperty('stale acknowledgement')}::${ghData(`${s.ruleId} (${s.direction}${s.subject ? `, ${s.subject}` : ''}) matched nothing; remove it`)}`);
  }
  lines.push(...coverageAnnotations(report.coverage ?? []));
  return lines.join('\n') + (lines.length ? '\n' : '');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const evidenceCell = (f: ReportedFinding, key: 'before' | 'after') => (key in f.evidence ? cell(brief(f.evidence[key], 80)) : '');

/** The Markdown appended to $GITHUB_STEP_SUMMARY, in report order. */
export function renderStepSummary(report: GateReport): string {
  const head = report.error
    ? `### termwire compat: ${report.error.kind === 'internalError' ? 'internal error' : 'could not compare'}\n\n\`\`\`\n${report.error.message}\n\`\`\`\n`
    : `### termwire compat: ${report.status === 'compatible' ? '✅ compatible' : '❌ incompatible'}\n\nAgainst ${report.baselines.map((b) => `\`${b.label}\``).join(', ')}${report.staticOnly ? ' (static pass only)' : ''}.\n`;
  if (!report.findings.length && !report.acknowledged.length) return head + '\n';
  const rows = [
    '| id | rule | direction | step | subject | expected | observed | caused by |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...report.findings.map((f) => `| ${f.id} | ${f.ruleId} | ${f.direction} | ${f.step ?? ''}${f.occurrence ? ` (${f.occurrence})` : ''} | ${cell(f.subject)} | ${evidenceCell(f, 'before')} | ${evidenceCell(f, 'after')} | ${f.causedBy ?? ''} |`),
    ...report.acknowledged.map((a) => `| ${a.finding.id} | ${a.finding.ruleId} (acknowledged) | ${a.finding.direction} | ${a.finding.step ?? ''} | ${cell(a.finding.subject)} | ${cell(a.reason)} | | ${a.finding.causedBy ?? ''} |`),
  ];
  return `${head}\n${rows.join('\n')}\n\n`;
}
