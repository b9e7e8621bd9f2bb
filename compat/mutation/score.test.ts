import { describe, expect, it } from 'vitest';
import { exitCodeOf } from './cli.js';
import type { GateVerdict } from './gate-run.js';
import { judgeMutant } from './judge.js';
import { renderMutationRun } from './render.js';
import type { MutationRun } from './results-file.js';
import { type MutantResult, type MutantStatus, scoreLine, tally } from './score.js';
import { fakeMutant } from './test-mutants.js';

const results = (counts: Partial<Record<MutantStatus, number>>): MutantResult[] =>
  Object.entries(counts).flatMap(([status, n]) => Array.from({ length: n }, (_, i) => ({ mutant: fakeMutant('src/host', i), status: status as MutantStatus })));

const run = (rs: MutantResult[]): MutationRun => ({ format: 'termwire-mutation/1', tree: 't', against: 'v0.2.0', seed: 1, sampleSize: rs.length, mutantsInSource: 5000, results: rs });

describe('the score line', () => {
  it('counts killed of killed plus survived; equivalents and errors stay out of M', () => {
    const s = tally(results({ killed: 9, survived: 2, equivalent: 3, error: 4 }));
    expect(scoreLine(s)).toBe('mutation score: 9 of 11 killed (81.8%), 3 equivalent, 2 survived');
  });

  it('never rounds up to a threshold it does not reach', () => {
    expect(scoreLine(tally(results({ killed: 899, survived: 100 })))).toBe('mutation score: 899 of 999 killed (89.9%), 0 equivalent, 100 survived');
    expect(exitCodeOf(run(results({ killed: 899, survived: 100 })), 90)).toBe(1);
    expect(exitCodeOf(run(results({ killed: 9, survived: 1 })), 90)).toBe(0);
  });

  it('says n/a when nothing was judged, and such a run cannot score (exit 2)', () => {
    expect(scoreLine(tally(results({ error: 2 })))).toBe('mutation score: 0 of 0 killed (n/a), 0 equivalent, 0 survived');
    expect(exitCodeOf(run(results({ error: 2 })), undefined)).toBe(2);
  });

  it('is the last line of the text report, below the survivors and the errors', () => {
    const text = renderMutationRun(run(results({ killed: 1, survived: 1, error: 1 })));
    const lines = text.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('mutation score: 1 of 2 killed (50.0%), 0 equivalent, 1 survived');
    expect(text).toContain(`survived, for triage (1):\n  src/host/f0.ts:1:3 EqualityOperator: a0 === b -> a0 !== b`);
    expect(text).toContain('1 error(s), not counted in the score');
  });
});

describe('judgeMutant', () => {
  const m = fakeMutant('src/codec', 4);
  const verdict = (exitCode: number | undefined, tree = 'T', over: Partial<GateVerdict> = {}): GateVerdict => ({
    exitCode,
    timedOut: false,
    logTail: '',
    report: { status: 'x', exitCode: 0, current: { version: '0.2.0', commit: `abc+tree:${tree}` }, findings: [{ ruleId: 'OPCODE_REMOVED' }, { ruleId: 'OPCODE_REMOVED' }] } as unknown as GateVerdict['report'],
    ...over,
  });

  it('kills on exit 1 and names the rules, lets survive on exit 0', () => {
    expect(judgeMutant(m, verdict(1), 'T', 1000)).toMatchObject({ status: 'killed', detail: 'OPCODE_REMOVED' });
    expect(judgeMutant(m, verdict(0), 'T', 1000).status).toBe('survived');
  });

  it('counts exit 2 and a timeout as errors', () => {
    expect(judgeMutant(m, verdict(2), 'T', 1000).status).toBe('error');
    expect(judgeMutant(m, verdict(undefined, 'T', { timedOut: true }), 'T', 1000)).toMatchObject({ status: 'error', detail: 'the gate did not finish within 1 s' });
  });

  it('trusts no verdict about a tree other than the mutated one (a reused build)', () => {
    expect(judgeMutant(m, verdict(0, 'UNMUTATED'), 'T', 1000)).toMatchObject({ status: 'error' });
    expect(judgeMutant(m, verdict(1, 'UNMUTATED'), 'T', 1000)).toMatchObject({ status: 'error' });
  });
});
