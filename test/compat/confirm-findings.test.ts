import { describe, expect, it } from 'vitest';
import { confirmFindings, walkAndConfirm } from '../../compat/confirm-findings.js';
import type { Finding } from '../../compat/rules/finding.js';

const finding = (ruleId: string, over: Partial<Finding> = {}): Finding => ({
  ruleId,
  pass: 'dynamic',
  direction: 'new client × old host',
  subject: 'frames client→host',
  message: 'differs',
  step: 'input',
  evidence: { before: 1, after: 2 },
  ...over,
});

describe('confirmFindings', () => {
  it('keeps what both walks found, whatever its evidence values', () => {
    const { confirmed, notReproduced } = confirmFindings([finding('FRAME_SEQUENCE_CHANGED')], [finding('FRAME_SEQUENCE_CHANGED', { evidence: { before: 1, after: 3 } })]);
    expect(confirmed.map((f) => f.ruleId)).toEqual(['FRAME_SEQUENCE_CHANGED']);
    expect(notReproduced).toEqual([]);
  });

  it('reports what only one walk found as not reproduced, from either walk', () => {
    const { confirmed, notReproduced } = confirmFindings([finding('FRAME_SEQUENCE_CHANGED')], [finding('JOURNEY_STALLED', { step: 'drop' })]);
    expect(confirmed).toEqual([]);
    expect(notReproduced.map((f) => `${f.ruleId}@${f.step}`)).toEqual(['FRAME_SEQUENCE_CHANGED@input', 'JOURNEY_STALLED@drop']);
  });

  it('tells apart the same rule in another step, direction, baseline or seed', () => {
    const first = [finding('X'), finding('X', { step: 'drop' }), finding('X', { direction: 'old client × new host' }), finding('X', { baseline: 'v0.1.0' }), finding('X', { explore: { seed: 7, moves: [] } })];
    const { confirmed, notReproduced } = confirmFindings(first, [finding('X')]);
    expect(confirmed).toHaveLength(1);
    expect(notReproduced).toHaveLength(4);
  });
});

describe('walkAndConfirm', () => {
  it('walks once when the first walk finds nothing', async () => {
    let again = 0;
    const result = await walkAndConfirm({ first: async () => 'clean', again: async () => (again++, 'clean') }, () => [], () => undefined);
    expect(again).toBe(0);
    expect(result).toEqual({ first: 'clean', confirmed: [], notReproduced: [] });
  });

  it('fails only on what the confirming walk finds again: a divergence of one walk is reported, not failing', async () => {
    const judged: Record<string, Finding[]> = { disturbed: [finding('FRAME_SEQUENCE_CHANGED'), finding('FIELD_STOPPED_PUBLISHING', { subject: 'Metadata.cols' })], calm: [finding('FIELD_STOPPED_PUBLISHING', { subject: 'Metadata.cols' })] };
    const confirming: number[] = [];
    const result = await walkAndConfirm({ first: async () => 'disturbed', again: async () => 'calm' }, (r) => judged[r]!, (found) => confirming.push(found.length));
    expect(confirming).toEqual([2]);
    expect(result.first).toBe('disturbed');
    expect(result.confirmed.map((f) => f.ruleId)).toEqual(['FIELD_STOPPED_PUBLISHING']);
    expect(result.notReproduced.map((f) => f.ruleId)).toEqual(['FRAME_SEQUENCE_CHANGED']);
  });
});
