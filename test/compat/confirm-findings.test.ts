import { describe, expect, it } from 'vitest';
import { settleByMajority, walkAndConfirm } from '../../compat/confirm-findings.js';
import type { Finding } from '../../compat/rules/finding.js';
import { representatives } from '../../compat/run-gate.js';

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

describe('settleByMajority', () => {
  const confirmFindings = (first: Finding[], again: Finding[]) => settleByMajority([first, again]);
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

describe('settleByMajority over three walks', () => {
  it('lets a calm walk that missed a finding outweigh two disturbed walks that found it, and confirms one every walk found however disturbed', () => {
    const reconnect = finding('FRAME_SEQUENCE_CHANGED', { step: 'burst' });
    expect(settleByMajority([[reconnect], [], [reconnect]], [true, false, true])).toEqual({ confirmed: [], notReproduced: [reconnect] });
    // A break that makes the client give up its link (a host whose pong the client cannot accept) disturbs every walk.
    expect(settleByMajority([[reconnect], [reconnect]], [true, true]).confirmed).toEqual([reconnect]);
    expect(settleByMajority([[reconnect], [], [reconnect]], [false, true, true]).confirmed).toEqual([reconnect]);
  });
  it('lets a calm walk that found a finding outweigh disturbed walks that missed it, but not a calm walk that missed it too', () => {
    const ack = finding('FIELD_VALUE_CHANGED', { subject: 'Ack.bytes' });
    expect(settleByMajority([[], [], [ack]], [true, true, false]).confirmed).toEqual([ack]);
    expect(settleByMajority([[], [ack], []], [true, false, false])).toEqual({ confirmed: [], notReproduced: [ack] });
    // All disturbed: the majority decides, as before.
    expect(settleByMajority([[], [], [ack]], [true, true, true])).toEqual({ confirmed: [], notReproduced: [ack] });
  });

  it('reports a confirmed break as the earliest undisturbed walk saw it: a disturbed walk names streams by connections a calm one lacks', () => {
    const ack = (stream: string) => finding('FIELD_VALUE_CHANGED', { subject: 'Ack.bytes', step: undefined, evidence: { stream } });
    const { confirmed } = settleByMajority([[ack('#1 on connection 3')], [ack('#1 on connection 1'), ack('#1 on connection 2')]], [true, false]);
    expect(confirmed.map((f) => f.evidence)).toEqual([{ stream: '#1 on connection 1' }, { stream: '#1 on connection 2' }]);
  });

  it('confirms what two of three walks found and keeps every stream the earliest of them found it on', () => {
    const ack = (stream: string) => finding('FIELD_VALUE_CHANGED', { subject: 'Ack.bytes', step: undefined, evidence: { stream } });
    const { confirmed, notReproduced } = settleByMajority([[finding('JOURNEY_STALLED')], [ack('#1'), ack('#2')], [ack('#1')]]);
    expect(confirmed.map((f) => f.evidence)).toEqual([{ stream: '#1' }, { stream: '#2' }]);
    expect(notReproduced.map((f) => f.ruleId)).toEqual(['JOURNEY_STALLED']);
  });
});

describe('walkAndConfirm', () => {
  it('walks once when the first walk finds nothing', async () => {
    let again = 0;
    const result = await walkAndConfirm({ first: async () => 'clean', again: async () => (again++, 'clean') }, () => [], () => undefined);
    expect(again).toBe(0);
    expect(result).toEqual({ first: 'clean', confirmed: [], notReproduced: [], disturbed: [] });
  });

  it('walks once when everything the first walk found follows from a cause that already stands, and reports it with that cause', async () => {
    let again = 0;
    const refused = finding('FRAME_REFUSED', { subject: 'byte stream Metadata' });
    const result = await walkAndConfirm({ first: async () => 'renamed', again: async () => (again++, 'renamed') }, () => [refused], () => undefined, () => [], (found) => new Set(found.filter((f) => f === refused)));
    expect(again).toBe(0);
    expect(result.confirmed).toEqual([refused]);
  });

  it('still confirms, by a second walk, what does not follow from a standing cause', async () => {
    const walked: string[] = [];
    const [standing, open] = [finding('FRAME_REFUSED'), finding('FIELD_VALUE_CHANGED', { subject: 'Ack.bytes' })];
    const judged: Record<string, Finding[]> = { first: [standing, open], again: [open] };
    const result = await walkAndConfirm({ first: async () => (walked.push('first'), 'first'), again: async () => (walked.push('again'), 'again') }, (r) => judged[r]!, () => undefined, () => [], (found) => new Set(found.filter((f) => f === standing)));
    expect(walked).toEqual(['first', 'again']);
    expect(result.confirmed).toEqual([standing, open]);
  });

  it('walks again when the first walk found nothing but was disturbed, and trusts the calm walk that finds the break (a masked walk is no green)', async () => {
    const judged: Record<string, Finding[]> = { masked: [], calm: [finding('FIELD_VALUE_CHANGED', { subject: 'Ack.bytes' })] };
    const walks = ['masked', 'calm', 'calm'];
    const reasons: string[] = [];
    const result = await walkAndConfirm({ first: async () => walks.shift()!, again: async () => walks.shift()! }, (r) => judged[r]!, (_found, why) => reasons.push(why), (r) => (r === 'masked' ? ['old client gave up connection 2'] : []));
    expect(walks).toEqual([]);
    expect(reasons).toEqual(['as the first walk was disturbed', 'a third time, as the two walks differ']);
    expect(result.confirmed.map((f) => f.subject)).toEqual(['Ack.bytes']);
    expect(result.disturbed).toEqual(['walk 1: old client gave up connection 2']);
  });

  it('settles a finding the first walk masked by a third walk: two of three is a break', async () => {
    const judged: Record<string, Finding[]> = { masked: [finding('FRAME_SEQUENCE_CHANGED')], calm: [finding('FRAME_SEQUENCE_CHANGED'), finding('FIELD_VALUE_CHANGED', { subject: 'Ack.bytes' })] };
    const walks = ['masked', 'calm', 'calm'];
    const result = await walkAndConfirm({ first: async () => walks.shift()!, again: async () => walks.shift()! }, (r) => judged[r]!, () => undefined);
    expect(result.confirmed.map((f) => f.ruleId).sort()).toEqual(['FIELD_VALUE_CHANGED', 'FRAME_SEQUENCE_CHANGED']);
    expect(result.notReproduced).toEqual([]);
  });

  it('walks a third time when two agreeing walks were both disturbed, and trusts the calm third that finds the break', async () => {
    const judged: Record<string, Finding[]> = { masked: [], calm: [finding('FIELD_VALUE_CHANGED', { subject: 'Ack.bytes' })] };
    const walks = ['masked', 'masked', 'calm'];
    const reasons: string[] = [];
    const result = await walkAndConfirm({ first: async () => walks.shift()!, again: async () => walks.shift()! }, (r) => judged[r]!, (_found, why) => reasons.push(why), (r) => (r === 'masked' ? ['new client gave up connection 3'] : []));
    expect(walks).toEqual([]);
    expect(reasons).toEqual(['as the first walk was disturbed', 'a third time, as both walks were disturbed']);
    expect(result.confirmed.map((f) => f.subject)).toEqual(['Ack.bytes']);
  });

  it('stops at two walks that agree', async () => {
    let walked = 0;
    const result = await walkAndConfirm({ first: async () => ++walked, again: async () => ++walked }, () => [finding('X')], () => undefined);
    expect(walked).toBe(2);
    expect(result.confirmed).toHaveLength(1);
  });

  it('fails only on what most walks find: a divergence of one walk is reported, not failing', async () => {
    const judged: Record<string, Finding[]> = { disturbed: [finding('FRAME_SEQUENCE_CHANGED'), finding('FIELD_STOPPED_PUBLISHING', { subject: 'Metadata.cols' })], calm: [finding('FIELD_STOPPED_PUBLISHING', { subject: 'Metadata.cols' })] };
    const confirming: number[] = [];
    const result = await walkAndConfirm({ first: async () => 'disturbed', again: async () => 'calm' }, (r) => judged[r]!, (found) => confirming.push(found.length));
    expect(confirming).toEqual([2, 3]);
    expect(result.first).toBe('disturbed');
    expect(result.confirmed.map((f) => f.ruleId)).toEqual(['FIELD_STOPPED_PUBLISHING']);
    expect(result.notReproduced.map((f) => f.ruleId)).toEqual(['FRAME_SEQUENCE_CHANGED']);
  });
});

describe('representatives: one explore schedule shrunk per root cause', () => {
  const seen = (seed: number, ruleId: string, subject: string) => finding(ruleId, { subject, explore: { seed, moves: ['burst'] } });

  it('keeps the first finding of each seed, once per rule, direction and wire subject', () => {
    const findings = [seen(0, 'FIELD_VALUE_CHANGED', 'Ack.bytes'), seen(0, 'FRAME_COUNT_CHANGED', 'Ack'), seen(1, 'FIELD_VALUE_CHANGED', 'Ack.bytes'), seen(2, 'FRAME_REFUSED', 'Metadata'), seen(3, 'FRAME_REFUSED', 'byte stream Metadata')];
    expect(representatives(findings).map((f) => f.explore!.seed)).toEqual([0, 2]);
  });
});
