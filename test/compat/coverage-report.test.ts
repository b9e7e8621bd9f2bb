import { describe, expect, it } from 'vitest';
import { type BaselineCoverage, coverageAnnotations, coverageTextLines } from '../../compat/report/coverage.js';
import type { KindCount } from '../../compat/coverage/measure.js';

const counts = Object.fromEntries(['opcode', 'field', 'event', 'flag', 'error', 'capability'].map((k) => [k, { exercised: 1, applicable: 2, exempt: 0 } satisfies KindCount])) as BaselineCoverage['directions'][number]['counts'];
const direction = 'old client × new host' as const;
const gaps = ['opcode:Resize', 'field:Resize.cols', 'opcode:ClaimViewport'].map((key) => ({ key, direction, isNew: false }));
const coverage = (over: Partial<BaselineCoverage>): BaselineCoverage => ({ baseline: 'v0.1.0', directions: [{ direction, counts }], uncovered: gaps, notApplicable: [], ...over });

describe('coverage gaps against a release whose peers cannot drive every step', () => {
  it('are one line naming the release, the steps and the entries, not a warning per entry', () => {
    const lines = coverageTextLines([coverage({ undrivableSteps: ['resize', 'claimViewport'] })], false);
    expect(lines.filter((l) => l.includes('warning'))).toEqual([]);
    expect(lines).toContain('  3 old entries not exercised against v0.1.0, whose peers cannot drive resize, claimViewport: opcode:Resize, field:Resize.cols, opcode:ClaimViewport');
  });

  it('are one ::notice in GitHub, without the advice to add a step that exists', () => {
    const annotations = coverageAnnotations([coverage({ undrivableSteps: ['resize'] })]);
    expect(annotations.filter((a) => a.startsWith('::warning'))).toEqual([]);
    expect(annotations.filter((a) => a.includes('cannot drive'))).toHaveLength(1);
  });

  it('stay warnings with the advice when every step was walked', () => {
    const annotations = coverageAnnotations([coverage({})]);
    expect(annotations.filter((a) => a.startsWith('::warning') && a.includes('add a journey step'))).toHaveLength(3);
    expect(coverageTextLines([coverage({})], false).filter((l) => l.startsWith('  warning:'))).toHaveLength(3);
  });
});
