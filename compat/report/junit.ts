import { ruleEntry } from '../rules/catalog.js';
import { PAIRING_LABELS, type DirectionLabel, type Finding } from '../rules/finding.js';
import { brief, xmlEscape } from './escape.js';
import { coverageJunitCases } from './coverage.js';
import type { GateReport } from './model.js';

const SKEWS: readonly DirectionLabel[] = [PAIRING_LABELS.oldClientNewHost, PAIRING_LABELS.newClientOldHost];
const ALL: readonly DirectionLabel[] = Object.values(PAIRING_LABELS);

/** JUnit XML: one testcase per rule × pairing (× baseline in a matrix); each finding a <failure>. */
export function renderJunit(report: GateReport): string {
  const cases: string[] = [];
  let failures = 0;
  if (report.error) {
    const tag = report.error.kind === 'internalError' ? 'error' : 'failure';
    cases.push(`    <testcase classname="termwire.compat" name="gate could compare"><${tag} message="${xmlEscape(report.error.message.split('\n')[0] ?? '')}">${xmlEscape(report.error.message)}</${tag}></testcase>`);
    failures = 1;
  }
  const baselines = report.baselines.length > 1 ? report.baselines.map((b) => b.label) : [undefined];
  for (const baseline of report.error ? [] : baselines) {
    for (const ruleId of report.rulesRun) {
      const pass = ruleEntry(ruleId)?.pass ?? 'static';
      for (const direction of pass === 'static' ? SKEWS : ALL) {
        const hit = (f: Finding) => f.ruleId === ruleId && f.direction === direction && (baseline === undefined || f.baseline === baseline);
        const found = report.findings.filter(hit);
        const name = `${ruleId} [${direction}]${baseline ? ` against ${baseline}` : ''}`;
        const body = found
          .map((f) => `<failure message="${xmlEscape(`${f.subject}: ${f.message}`)}">${xmlEscape(`${f.step ? `step ${f.step}${f.occurrence ? ` (${f.occurrence})` : ''}\n` : ''}expected: ${brief(f.evidence.before, 2000)}\nobserved: ${brief(f.evidence.after, 2000)}`)}</failure>`)
          .join('');
        if (found.length) failures++;
        cases.push(`    <testcase classname="termwire.compat.${pass}" name="${xmlEscape(name)}">${body}</testcase>`);
      }
    }
  }
  cases.push(...coverageJunitCases(report.coverage ?? [], report.baselines.length > 1));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="termwire compat" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="termwire compat" tests="${cases.length}" failures="${failures}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
