import { ruleEntry } from '../rules/catalog.js';
import { PAIRING_LABELS, type DirectionLabel } from '../rules/finding.js';
import { coverageJunitCases } from './coverage.js';
import { xmlEscape } from './escape.js';
import { evidenceLines, fixLine, where } from './finding-lines.js';
import type { GateReport } from './model.js';
import { describeEntry } from './acknowledged.js';
import type { ReportedFinding } from './root-causes.js';

const SKEWS: readonly DirectionLabel[] = [PAIRING_LABELS.oldClientNewHost, PAIRING_LABELS.newClientOldHost];
const ALL: readonly DirectionLabel[] = Object.values(PAIRING_LABELS);

const caseName = (f: ReportedFinding) => `${f.id} ${f.ruleId} [${f.direction}] ${f.subject}${f.step ? ` at ${f.step}${f.occurrence ? ` (${f.occurrence})` : ''}` : ''}${f.baseline ? ` against ${f.baseline}` : ''}`;

function findingBody(f: ReportedFinding): string {
  const cause = f.causedBy ? [`consequence of ${f.causedBy}`] : [];
  return [...cause, where(f), ...evidenceLines(f, 2000).map((l) => l.text), fixLine(f)].join('\n');
}

/**
 * JUnit XML in report order (root causes first): one testcase per finding,
 * failing, or skipped when acknowledged; one failing testcase per expired
 * acknowledgement that still matches; one passing testcase per rule ×
 * pairing (× baseline in a matrix) that found nothing. Totals count exactly those.
 */
export function renderJunit(report: GateReport): string {
  const cases: string[] = [];
  let failures = 0;
  let errors = 0;
  if (report.error) {
    const tag = report.error.kind === 'internalError' ? 'error' : 'failure';
    cases.push(`    <testcase classname="termwire.compat" name="gate could compare"><${tag} message="${xmlEscape(report.error.message.split('\n')[0] ?? '')}">${xmlEscape(report.error.message)}</${tag}></testcase>`);
    if (tag === 'error') errors = 1;
    else failures = 1;
  }
  for (const f of report.findings) {
    cases.push(`    <testcase classname="termwire.compat.${f.pass}" name="${xmlEscape(caseName(f))}"><failure message="${xmlEscape(`${f.subject}: ${f.message}`)}">${xmlEscape(findingBody(f))}</failure></testcase>`);
    failures++;
  }
  for (const e of report.expiredAcknowledgements ?? []) {
    const message = `expired on ${e.expires} (owner ${e.owner}): ${e.findings.join(', ')} fail again`;
    cases.push(`    <testcase classname="termwire.compat.acknowledgements" name="${xmlEscape(`expired acknowledgement ${describeEntry(e)}`)}"><failure message="${xmlEscape(message)}">${xmlEscape(`${message}\nfix the break, or renew "expires" under review\nreason: ${e.reason}`)}</failure></testcase>`);
    failures++;
  }
  for (const { finding: f, reason } of report.acknowledged) {
    cases.push(`    <testcase classname="termwire.compat.${f.pass}" name="${xmlEscape(caseName(f))}"><skipped message="${xmlEscape(`acknowledged: ${reason}`)}"/></testcase>`);
  }
  const found = [...report.findings, ...report.acknowledged.map((a) => a.finding)];
  const baselines = report.baselines.length > 1 ? report.baselines.map((b) => b.label) : [undefined];
  for (const baseline of report.error ? [] : baselines) {
    for (const ruleId of report.rulesRun) {
      const pass = ruleEntry(ruleId)?.pass ?? 'static';
      for (const direction of pass === 'static' ? SKEWS : ALL) {
        if (found.some((f) => f.ruleId === ruleId && f.direction === direction && (baseline === undefined || f.baseline === baseline))) continue;
        cases.push(`    <testcase classname="termwire.compat.${pass}" name="${xmlEscape(`${ruleId} [${direction}]${baseline ? ` against ${baseline}` : ''}`)}"/>`);
      }
    }
  }
  cases.push(...coverageJunitCases(report.coverage ?? [], report.baselines.length > 1));
  const totals = `tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="${report.acknowledged.length}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="termwire compat" ${totals}>`,
    `  <testsuite name="termwire compat" ${totals}>`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
