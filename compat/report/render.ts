import { acknowledgementEntry, isoDay } from './acknowledged.js';
import { fixHint } from './fix-hints.js';
import { directionsCovered } from './root-causes.js';
import { renderGithubAnnotations } from './github.js';
import { renderJunit } from './junit.js';
import type { GateReport } from './model.js';
import { renderText } from './text.js';

export const REPORT_FORMATS = ['text', 'json', 'junit', 'github'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** JSON gets what the text gives a person: each root cause's fix hint and the entry that would acknowledge it. */
function withGuidance(report: GateReport) {
  const today = report.date ?? isoDay(new Date());
  return {
    ...report,
    findings: report.findings.map((f) => (f.causedBy ? f : { ...f, fix: fixHint(f.ruleId), acknowledgeWith: acknowledgementEntry(f, today, directionsCovered(f, report.findings)) })),
  };
}

/** `verbose`: the text report prints every acknowledged finding in full, not one line per acknowledgement. */
export function renderReport(report: GateReport, format: ReportFormat, color: boolean, verbose = false): string {
  switch (format) {
    case 'text':
      return renderText(report, { color, verbose });
    case 'json':
      return JSON.stringify(withGuidance(report), null, 2) + '\n';
    case 'junit':
      return renderJunit(report);
    case 'github':
      // Annotations for the UI, plus the plain text so the log stays readable.
      return renderGithubAnnotations(report) + renderText(report, { color: false, verbose });
  }
}
