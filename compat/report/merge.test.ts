import { describe, expect, it } from 'vitest';
import { CompatError } from '../errors.js';
import { PAIRING_LABELS } from '../rules/finding.js';
import type { StaleAcknowledgement } from './acknowledged.js';
import { mergeShardReports } from './merge.js';
import type { GateReport } from './model.js';
import type { ReportedFinding } from './root-causes.js';
import { renderReport } from './render.js';

const direction = PAIRING_LABELS.oldClientNewHost;
const finding = (id: string, subject: string, seed?: number): ReportedFinding => ({
  id,
  ruleId: 'FIELD_VALUE_CHANGED',
  pass: 'dynamic',
  direction,
  subject,
  message: `${subject} changed`,
  evidence: { before: 1, after: 2 },
  ...(seed !== undefined ? { explore: { seed, moves: ['burst'] } } : {}),
});
const stale = (subject: string): StaleAcknowledgement => ({ ruleId: 'FIELD_VALUE_CHANGED', direction, subject, reason: 'intended', owner: 'a', expires: '2027-01-01', unmatched: 'subject' }) as StaleAcknowledgement;

function shard(index: number, count: number, over: Partial<GateReport> = {}): GateReport {
  return {
    status: 'compatible',
    exitCode: 0,
    current: { version: '0.2.0', commit: 'c'.repeat(40) },
    baselines: [{ label: 'v0.1.0', commit: 'b'.repeat(40), version: '0.1.0' }],
    staticOnly: false,
    rulesRun: ['FIELD_VALUE_CHANGED'],
    findings: [],
    acknowledged: [],
    staleAcknowledgements: [],
    explore: { seed: 7, count: 2, schedules: [] },
    shard: { index, count, units: [{ baseline: 'v0.1.0', script: index === 1, exploreSeeds: [index === 1 ? 8 : 7] }] },
    ...over,
  };
}

const refusal = (reports: GateReport[]) => {
  try {
    mergeShardReports(reports);
  } catch (e) {
    expect(e).toBeInstanceOf(CompatError);
    expect((e as CompatError).code).toBe('BAD_SHARDS');
    return (e as Error).message;
  }
  throw new Error('merged a set it should refuse');
};

describe('merging the reports of a sharded run', () => {
  it('refuses a set that is not exactly shards 1/n to n/n of one run', () => {
    expect(refusal([])).toContain('all n of them');
    expect(refusal([shard(1, 2)])).toContain('1/2 to 2/2 exactly once');
    expect(refusal([shard(1, 2), shard(1, 2)])).toContain('exactly once');
    expect(refusal([shard(1, 2), shard(2, 3)])).toContain('exactly once');
    expect(refusal([shard(1, 2), { ...shard(2, 2), shard: undefined }])).toContain("report 2 is not a shard's");
    expect(refusal([shard(1, 2), shard(2, 2, { current: { version: '0.2.0', commit: 'd'.repeat(40) } })])).toContain('shard 2/2 judged another run');
    expect(refusal([shard(1, 2), shard(2, 2, { explore: { seed: 8, count: 2, schedules: [] } })])).toContain('judged another run');
    expect(refusal([shard(1, 2, { passes: ['script'] }), shard(2, 2)])).toContain('baselines, passes or explore sweep differ');
  });

  it('keeps the passes a run was limited to (--passes), and the text report says so in its header', () => {
    const merged = mergeShardReports([shard(1, 2, { passes: ['script', 'restart'] }), shard(2, 2, { passes: ['script', 'restart'] })]);
    expect(merged.passes).toEqual(['script', 'restart']);
    expect(renderReport(merged, 'text', false).split('\n')[0]).toContain('— passes script, restart only');
  });

  it('gives one verdict: findings of every shard, the same finding once, renumbered; stale only where no shard matched', () => {
    const merged = mergeShardReports([
      shard(2, 2, { status: 'incompatible', exitCode: 1, findings: [finding('F1', 'Ack.bytes', 7), finding('F2', 'Resized.cols')], staleAcknowledgements: [stale('Gone.field'), stale('Resized.cols')] }),
      shard(1, 2, { findings: [], staleAcknowledgements: [stale('Gone.field')], explore: { seed: 7, count: 2, schedules: ['seed 8: burst'] }, coverage: [{ baseline: 'v0.1.0', directions: [], uncovered: [] } as never] }),
    ]);
    expect(merged).toMatchObject({ status: 'incompatible', exitCode: 1 });
    expect(merged.findings.map((f) => [f.id, f.subject])).toEqual([
      ['F1', 'Ack.bytes'],
      ['F2', 'Resized.cols'],
    ]);
    expect(merged.staleAcknowledgements.map((s) => s.subject)).toEqual(['Gone.field']);
    expect(merged.coverage).toHaveLength(1);
    expect(merged.shards?.map((s) => [s.index, s.units[0]!.exploreSeeds])).toEqual([
      [1, [8]],
      [2, [7]],
    ]);
    expect(merged.shard).toBeUndefined();
    expect(renderReport(merged, 'text', false)).toContain('merged from 2 shard(s):\n  1/2: against v0.1.0: the script, explore seeds 8\n  2/2: against v0.1.0: explore seeds 7');
    expect(renderReport(merged, 'junit', false)).toContain('FIELD_VALUE_CHANGED');
  });

  it('a finding two shards both saw is one', () => {
    const merged = mergeShardReports([shard(1, 2, { findings: [finding('F1', 'Resized.cols')] }), shard(2, 2, { findings: [finding('F3', 'Resized.cols')] })]);
    expect(merged.findings).toHaveLength(1);
  });

  it('is a run that could not compare (exit 2) when any shard could not, and says which', () => {
    const failed: GateReport = { ...shard(2, 2), status: 'cannotCompare', exitCode: 2, error: { kind: 'cannotCompare', code: 'BUILD_FAILED', message: 'tsc failed' } };
    const merged = mergeShardReports([shard(1, 2), failed]);
    expect(merged).toMatchObject({ status: 'cannotCompare', exitCode: 2, error: { code: 'BUILD_FAILED', message: 'shard 2/2: tsc failed' } });
  });
});
