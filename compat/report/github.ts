import type { Finding } from '../rules/finding.js';
import { brief, ghData, ghProperty } from './escape.js';
import { coverageAnnotations } from './coverage.js';
import type { GateReport } from './model.js';

function title(f: Finding): string {
  return `${f.ruleId} (${f.direction}${f.step ? `, ${f.step}${f.occurrence ? `/${f.occurrence}` : ''}` : ''})`;
}

function detail(f: Finding): string {
  return `${f.subject}: ${f.message}\nexpected: ${brief(f.evidence.before)}\nobserved: ${brief(f.evidence.after)}`;
}

/** GitHub Actions workflow commands: ::error per finding, ::notice per acknowledged one, ::warning per stale entry. */
export function renderGithubAnnotations(report: GateReport): string {
  const lines: string[] = [];
  if (report.error) {
    const t = report.error.kind === 'internalError' ? 'termwire compat: internal error (the checker broke)' : 'termwire compat could not compare';
    lines.push(`::error title=${ghProperty(t)}::${ghData(report.error.message)}`);
  }
  for (const f of report.findings) lines.push(`::error title=${ghProperty(title(f))}::${ghData(detail(f))}`);
  for (const a of report.acknowledged) lines.push(`::notice title=${ghProperty(`acknowledged ${title(a.finding)}`)}::${ghData(`${detail(a.finding)}\nreason: ${a.reason}`)}`);
  for (const s of report.staleAcknowledgements) {
    lines.push(`::warning file=compat/acknowledged-breaks.json,title=${ghProperty('stale acknowledgement')}::${ghData(`${s.ruleId} (${s.direction}${s.subject ? `, ${s.subject}` : ''}) matched nothing; remove it`)}`);
  }
  lines.push(...coverageAnnotations(report.coverage ?? []));
  return lines.join('\n') + (lines.length ? '\n' : '');
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown appended to $GITHUB_STEP_SUMMARY. */
export function renderStepSummary(report: GateReport): string {
  const head = report.error
    ? `### termwire compat: ${report.error.kind === 'internalError' ? 'internal error' : 'could not compare'}\n\n\`\`\`\n${report.error.message}\n\`\`\`\n`
    : `### termwire compat: ${report.status === 'compatible' ? '✅ compatible' : '❌ incompatible'}\n\nAgainst ${report.baselines.map((b) => `\`${b.label}\``).join(', ')}${report.staticOnly ? ' (static pass only)' : ''}.\n`;
  if (!report.findings.length && !report.acknowledged.length) return head + '\n';
  const rows = [
    '| rule | direction | step | subject | expected | observed |',
    '| --- | --- | --- | --- | --- | --- |',
    ...report.findings.map((f) => `| ${f.ruleId} | ${f.direction} | ${f.step ?? ''}${f.occurrence ? ` (${f.occurrence})` : ''} | ${cell(f.subject)} | ${cell(brief(f.evidence.before, 80))} | ${cell(brief(f.evidence.after, 80))} |`),
    ...report.acknowledged.map((a) => `| ${a.finding.ruleId} (acknowledged) | ${a.finding.direction} | ${a.finding.step ?? ''} | ${cell(a.finding.subject)} | ${cell(a.reason)} | |`),
  ];
  return `${head}\n${rows.join('\n')}\n\n`;
}
