import { describe, expect, it } from 'vitest';
import { applyAcknowledgements } from '../../compat/report/acknowledged.js';
import { renderGithubAnnotations, renderStepSummary } from '../../compat/report/github.js';
import { renderJunit } from '../../compat/report/junit.js';
import type { GateReport } from '../../compat/report/model.js';
import { renderReport } from '../../compat/report/render.js';
import { sortAndDedupe } from '../../compat/report/sort.js';
import { activeRules } from '../../compat/rules/catalog.js';
import type { Finding } from '../../compat/rules/finding.js';

const removed: Finding = {
  ruleId: 'FIELD_STOPPED_PUBLISHING', pass: 'dynamic', direction: 'old client × new host', subject: 'SnapshotStart.requestId',
  step: 'hideReveal', occurrence: 'reveal', message: 'the new host no longer publishes requestId, 100% & <sure>', evidence: { before: 'r1', after: undefined },
};
const stalled: Finding = {
  ruleId: 'JOURNEY_STALLED', pass: 'dynamic', direction: 'new client × old host', subject: 'step drop', step: 'drop',
  message: 'step drop stalled: missing reconnect,\nsecond line', evidence: { missing: 'reconnect' },
};
const ungated: Finding = {
  ruleId: 'OPCODE_NEW_UNGATED', pass: 'static', direction: 'old client × new host', subject: 'Bell', message: 'new opcode 19 Bell has no gating capability', evidence: { before: null, after: { code: 19 } },
};

function report(findings: Finding[], extra: Partial<GateReport> = {}): GateReport {
  return {
    status: findings.length ? 'incompatible' : 'compatible', exitCode: findings.length ? 1 : 0,
    current: { version: '1.1.0', commit: 'abc+tree:def' }, baselines: [{ label: 'v1.0.0', commit: 'f'.repeat(40), version: '1.0.0' }],
    staticOnly: false, rulesRun: [...activeRules('static'), ...activeRules('dynamic')].map((r) => r.id),
    findings, acknowledged: [], staleAcknowledgements: [], ...extra,
  };
}

/** A small well-formedness check: balanced tags, quoted attributes, no raw & or < in text. */
function assertWellFormedXml(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const body = xml.replace(/^<\?xml[^>]*\?>\n/, '');
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w.-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(body); m; m = tag.exec(body)) {
    const text = body.slice(last, m.index);
    expect(text, `raw markup in text: ${text}`).not.toMatch(/[<>]|&(?!(amp|lt|gt|quot|apos);)/);
    last = tag.lastIndex;
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else if (!m[4]) stack.push(m[2]!);
  }
  expect(body.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
}

describe('reports', () => {
  it('prints what a rule could not compare as a note, not a finding', () => {
    const note = 'the baseline manifest (0.1.0) has no surface list; flag entries and error entries were not compared';
    const text = renderReport(report([], { notes: [note] }), 'text', false);
    expect(text).toContain(`note: ${note}`);
    expect(text).toContain('compatible: 0 finding(s)');
    expect(JSON.parse(renderReport(report([], { notes: [note] }), 'json', false)).notes).toEqual([note]);
  });

  it('sorts in journey order and drops exact duplicates', () => {
    const sorted = sortAndDedupe([stalled, removed, ungated, removed]);
    expect(sorted.map((f) => f.ruleId)).toEqual(['JOURNEY_STALLED', 'FIELD_STOPPED_PUBLISHING', 'OPCODE_NEW_UNGATED']);
  });

  it('JSON keeps the finding fields machines need', () => {
    const json = JSON.parse(renderReport(report([removed]), 'json', false));
    expect(json).toMatchObject({ status: 'incompatible', exitCode: 1, baselines: [{ label: 'v1.0.0' }] });
    expect(json.findings[0]).toEqual({
      ruleId: 'FIELD_STOPPED_PUBLISHING', pass: 'dynamic', direction: 'old client × new host', subject: 'SnapshotStart.requestId',
      step: 'hideReveal', occurrence: 'reveal', message: removed.message, evidence: { before: 'r1' },
    });
  });

  it('JUnit XML is well-formed, one testcase per rule × pairing, findings as failures', () => {
    const xml = renderJunit(report([removed, stalled]));
    assertWellFormedXml(xml);
    const cases = xml.match(/<testcase /g)!.length;
    expect(cases).toBe(activeRules('static').length * 2 + activeRules('dynamic').length * 4);
    expect(xml.match(/<failure /g)).toHaveLength(2);
    expect(xml).toContain('name="FIELD_STOPPED_PUBLISHING [old client × new host]"><failure message="SnapshotStart.requestId: the new host no longer publishes requestId, 100% &amp; &lt;sure&gt;"');
    expect(xml).toContain(`failures="2"`);
  });

  it('JUnit reports a could-not-compare as a failure, an internal error as an error', () => {
    const cannot = renderJunit(report([], { status: 'cannotCompare', exitCode: 2, error: { kind: 'cannotCompare', code: 'NO_BASELINE', message: 'NO_BASELINE: no release <found>' } }));
    assertWellFormedXml(cannot);
    expect(cannot).toContain('<failure message="NO_BASELINE: no release &lt;found&gt;"');
    const internal = renderJunit(report([], { status: 'internalError', exitCode: 2, error: { kind: 'internalError', message: 'TypeError: x is undefined' } }));
    expect(internal).toContain('<error message="TypeError: x is undefined"');
  });

  it('GitHub annotations: one ::error per finding with escaped data; stale entries warn', () => {
    const out = renderGithubAnnotations(report([stalled], { staleAcknowledgements: [{ ruleId: 'OPCODE_REMOVED', direction: 'new client × old host', reason: 'retired on purpose long ago' }] }));
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    // Properties escape ',' and ':'; data escapes only '%', CR and LF.
    expect(lines[0]).toBe('::error title=JOURNEY_STALLED (new client × old host%2C drop)::step drop: step drop stalled: missing reconnect,%0Asecond line%0Aexpected: (absent)%0Aobserved: (absent)');
    expect(lines[1]).toMatch(/^::warning file=compat\/acknowledged-breaks.json,title=stale acknowledgement::OPCODE_REMOVED/);
    expect(renderStepSummary(report([stalled]))).toContain('| JOURNEY_STALLED | new client × old host | drop |');
  });

  it('text: findings and internal errors read differently; NO_COLOR-style output has no escapes', () => {
    const text = renderReport(report([removed]), 'text', false);
    expect(text).toContain('✗ FIELD_STOPPED_PUBLISHING  old client × new host · step hideReveal (reveal)');
    expect(text).toContain('- expected: "r1"');
    expect(text).toContain('+ observed: (absent)');
    expect(text).toContain('INCOMPATIBLE: 1 finding(s)');
    expect(text).not.toContain('\x1b[');
    const internal = renderReport(report([], { status: 'internalError', exitCode: 2, error: { kind: 'internalError', message: 'boom' } }), 'text', false);
    expect(internal).toContain('INTERNAL ERROR');
    const cannot = renderReport(report([], { status: 'cannotCompare', exitCode: 2, error: { kind: 'cannotCompare', message: 'NO_BASELINE: x' } }), 'text', false);
    expect(cannot).toContain('could not compare (exit 2)');
    expect(cannot).not.toContain('INTERNAL');
  });

  it('acknowledged breaks do not fail; an entry matching nothing is stale; a rule that did not run proves nothing', () => {
    const acks = [
      { ruleId: 'FIELD_STOPPED_PUBLISHING', direction: 'old client × new host', subject: 'SnapshotStart.requestId', reason: 'requestId moved to the Metadata event in 2.0' },
      { ruleId: 'OPCODE_REMOVED', direction: 'new client × old host', reason: 'matches nothing in this run' },
      { ruleId: 'FIELD_STOPPED_PUBLISHING', direction: 'new client × old host', reason: 'wrong direction: must not match' },
    ];
    const { failing, acknowledged, stale } = applyAcknowledgements([removed, ungated], acks, ['OPCODE_REMOVED', 'FIELD_STOPPED_PUBLISHING', 'OPCODE_NEW_UNGATED']);
    expect(failing).toEqual([ungated]);
    expect(acknowledged).toEqual([{ finding: removed, reason: acks[0]!.reason }]);
    expect(stale).toEqual([acks[1], acks[2]]);
    expect(applyAcknowledgements([], acks, ['OPCODE_REMOVED']).stale).toEqual([acks[1]]);
    // An entry for the other direction does not cover the finding.
    expect(applyAcknowledgements([removed], [acks[2]!], ['FIELD_STOPPED_PUBLISHING']).failing).toEqual([removed]);
  });
});
