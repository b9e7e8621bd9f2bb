import { describe, expect, it } from 'vitest';
import { evidenceLines } from '../../compat/report/finding-lines.js';
import type { Finding } from '../../compat/rules/finding.js';

const finding = (evidence: Finding['evidence']): Finding => ({ ruleId: 'FRAME_NO_LONGER_SENT', pass: 'dynamic', direction: 'old client × new host', subject: 'SnapshotEnd', message: 'no longer sent', step: 'hideReveal', evidence });

describe('evidence lines carry something or are left out', () => {
  it('leaves out expected and observed when both are null', () => {
    expect(evidenceLines(finding({ before: null, after: null, referenceFrame: 95 }))).toEqual([]);
  });

  it('shows a null side as absent when the other side has a value', () => {
    expect(evidenceLines(finding({ before: { kind: 'scrollback' }, after: null })).map((l) => l.text)).toEqual(['expected: {"kind":"scrollback"}', 'observed: (absent)']);
  });
});
