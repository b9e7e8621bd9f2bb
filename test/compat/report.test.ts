import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyAcknowledgements, loadAcknowledgedBreaks } from '../../compat/report/acknowledged.js';
import { renderGithubAnnotations, renderStepSummary } from '../../compat/report/github.js';
import { renderJunit } from '../../compat/report/junit.js';
import type { GateReport } from '../../compat/report/model.js';
import { renderReport } from '../../compat/report/render.js';
import { orderByRootCause, type ReportedFinding } from '../../compat/report/root-causes.js';
import { sortAndDedupe } from '../../compat/report/sort.js';
import { fixHint } from '../../compat/report/fix-hints.js';
import { sourceLocator } from '../../compat/report/source-location.js';
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
    findings: orderByRootCause(findings), acknowledged: [], staleAcknowledgements: [], date: TODAY, ...extra,
  };
}

/** The day the reports below were judged on: pasted entries expire 90 days later. */
const TODAY = '2026-12-01';

// A field made required in the new client: the static cause, the refusal it explains, and the symptoms after it.
const breaks = 'new client × old host' as const;
const madeRequired: Finding = {
  ruleId: 'PAYLOAD_FIELD_MADE_REQUIRED', pass: 'static', direction: breaks, subject: 'SnapshotStart.hiddenOutputReason',
  message: 'optional in the baseline, required now', evidence: { before: { optional: true }, after: { optional: false } },
};
const refused: Finding = {
  ruleId: 'FRAME_REFUSED', pass: 'dynamic', direction: breaks, subject: 'SnapshotStart', step: 'initialSnapshot', occurrence: 'initial',
  message: 'the client refused SnapshotStart (opcode 2, stream 1, seq 0): SCHEMA_MISMATCH',
  evidence: { frameIndex: 3, refusedBy: { code: 'SCHEMA_MISMATCH', message: 'SCHEMA_MISMATCH: hiddenOutputReason: Invalid input: expected string, received undefined' } },
};
const stalledAfter: Finding = { ...stalled, step: 'initialSnapshot', subject: 'step initialSnapshot', message: 'step initialSnapshot stalled: missing SnapshotEnd' };
const screen: Finding = { ruleId: 'SCREEN_MISMATCH', pass: 'dynamic', direction: breaks, subject: 'screen', message: 'differs from line 1', evidence: { before: '$ ', after: null, line: 1 } };
const fieldMadeRequired = [screen, removed, stalledAfter, refused, madeRequired];

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

  it('sorts static findings first, then dynamic ones in journey order, and drops exact duplicates', () => {
    const sorted = sortAndDedupe([stalled, removed, ungated, removed]);
    expect(sorted.map((f) => f.ruleId)).toEqual(['OPCODE_NEW_UNGATED', 'FIELD_STOPPED_PUBLISHING', 'JOURNEY_STALLED']);
  });

  it('groups each symptom under the root cause that explains it, causes first', () => {
    const ordered = orderByRootCause(fieldMadeRequired);
    expect(ordered.map((f) => [f.id, f.ruleId, f.causedBy])).toEqual([
      ['F1', 'PAYLOAD_FIELD_MADE_REQUIRED', undefined],
      ['F2', 'FRAME_REFUSED', 'F1'],
      ['F3', 'JOURNEY_STALLED', 'F1'],
      ['F4', 'SCREEN_MISMATCH', 'F1'],
      ['F5', 'FIELD_STOPPED_PUBLISHING', undefined], // the other direction: nothing here explains it
    ]);
  });

  it('a refusal explains only what comes at or after its step, in its own pairing', () => {
    const early: Finding = { ...stalled, direction: breaks, step: 'subscribe', subject: 'step subscribe' };
    const otherPairing: Finding = { ...stalledAfter, direction: 'old client × new host' };
    const ordered = orderByRootCause([refused, early, otherPairing]);
    expect(ordered.find((f) => f.step === 'subscribe')!.causedBy).toBeUndefined();
    expect(ordered.find((f) => f.direction === 'old client × new host')!.causedBy).toBeUndefined();
    // Without its static cause, the refusal is the root its symptoms hang under.
    const alone = orderByRootCause([stalledAfter, refused]);
    expect(alone.map((f) => [f.ruleId, f.causedBy])).toEqual([['FRAME_REFUSED', undefined], ['JOURNEY_STALLED', 'F1']]);
  });

  it('text leads with the cause: the refused field and schema error, a fix hint with its docs, a pasteable acknowledgement', () => {
    const text = renderReport(report(fieldMadeRequired), 'text', false);
    const body = text.split('\n');
    expect(body[2]).toBe('✗ PAYLOAD_FIELD_MADE_REQUIRED  new client × old host');
    expect(text).toContain('fix (Rule 1): keep the field `.optional()` in the reader: peers that predate it never send it; see docs/compatibility.md#the-three-rules');
    expect(text).toContain('explains 3 more finding(s):');
    expect(text).toContain('refused: field SnapshotStart.hiddenOutputReason: Invalid input: expected string, received undefined');
    expect(text.indexOf('PAYLOAD_FIELD_MADE_REQUIRED')).toBeLessThan(text.indexOf('JOURNEY_STALLED'));
    const pasted = body[body.findIndex((l) => l.includes('acknowledge it (and what it explains)')) + 1]!.trim();
    // A static finding has no step: the entry names none.
    expect(JSON.parse(pasted)).toEqual({ ruleId: 'PAYLOAD_FIELD_MADE_REQUIRED', direction: breaks, subject: 'SnapshotStart.hiddenOutputReason', reason: 'TODO: say why this break is intended', owner: 'TODO: who answers for this break', expires: '2027-03-01' });
    expect(text).toContain('INCOMPATIBLE: 5 finding(s) from 2 root cause(s)');
  });

  it('the pasted acknowledgement is a valid entry, and acknowledging a cause acknowledges its consequences', () => {
    const dir = mkdtempSync(join(tmpdir(), 'termwire-ack-'));
    try {
      const text = renderReport(report(fieldMadeRequired), 'text', false).split('\n');
      const entry = text[text.findIndex((l) => l.includes('acknowledge it (and what it explains)')) + 1]!.trim();
      // As pasted, the placeholders are refused: an owner and a reason must be written in.
      writeFileSync(join(dir, 'acks.json'), `[${entry}]`);
      expect(() => loadAcknowledgedBreaks(join(dir, 'acks.json'), TODAY)).toThrow(/reason: replace the placeholder[\s\S]*owner: replace the placeholder/);
      writeFileSync(join(dir, 'acks.json'), `[${entry.replace('TODO: say why this break is intended', 'hiddenOutputReason is sent by every supported host').replace('TODO: who answers for this break', '@wire-team')}]`);
      const acks = loadAcknowledgedBreaks(join(dir, 'acks.json'), TODAY);
      const { failing, acknowledged } = applyAcknowledgements(orderByRootCause(fieldMadeRequired), acks, ['PAYLOAD_FIELD_MADE_REQUIRED'], TODAY);
      expect(failing.map((f) => f.ruleId)).toEqual(['FIELD_STOPPED_PUBLISHING']);
      expect(acknowledged.map((a) => a.finding.ruleId)).toEqual(['PAYLOAD_FIELD_MADE_REQUIRED', 'FRAME_REFUSED', 'JOURNEY_STALLED', 'SCREEN_MISMATCH']);
      expect(acknowledged[1]!.reason).toBe('consequence of PAYLOAD_FIELD_MADE_REQUIRED SnapshotStart.hiddenOutputReason, acknowledged: hiddenOutputReason is sent by every supported host');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every rule has a fix hint naming a docs section; a rule whose spec has none falls back to its compatibility rule', () => {
    for (const r of activeRules('static').concat(activeRules('dynamic'))) expect(r.fix, r.id).toBeDefined();
    expect(fixHint('SOME_FUTURE_RULE')).toMatchObject({ docs: expect.stringContaining('docs/') });
  });

  it('JSON keeps the finding fields machines need', () => {
    const json = JSON.parse(renderReport(report([removed]), 'json', false));
    expect(json).toMatchObject({ status: 'incompatible', exitCode: 1, baselines: [{ label: 'v1.0.0' }] });
    expect(json.findings[0]).toEqual({
      fix: expect.objectContaining({ docs: expect.stringContaining('docs/') }),
      acknowledgeWith: {
        ruleId: 'FIELD_STOPPED_PUBLISHING', direction: 'old client × new host', subject: 'SnapshotStart.requestId', step: 'hideReveal', occurrence: 'reveal',
        reason: 'TODO: say why this break is intended', owner: 'TODO: who answers for this break', expires: '2027-03-01',
      },
      id: 'F1', ruleId: 'FIELD_STOPPED_PUBLISHING', pass: 'dynamic', direction: 'old client × new host', subject: 'SnapshotStart.requestId',
      step: 'hideReveal', occurrence: 'reveal', message: removed.message, evidence: { before: 'r1' },
    });
  });

  it('JUnit XML is well-formed: one testcase per finding, causes first, one passing case per quiet rule × pairing, true totals', () => {
    const twice: Finding = { ...removed, subject: 'SnapshotStart.source', message: 'no longer publishes source' }; // same rule and pairing
    const xml = renderJunit(report([removed, stalled, twice, madeRequired, refused]));
    assertWellFormedXml(xml);
    const cases = xml.match(/<testcase /g)!.length;
    const quiet = activeRules('static').length * 2 + activeRules('dynamic').length * 4 - 4; // four rule × pairing cells found something
    expect(cases).toBe(5 + quiet);
    for (const c of xml.match(/<testcase [^\n]*/g)!) expect((c.match(/<failure /g) ?? []).length).toBeLessThanOrEqual(1);
    expect(xml.match(/<failure /g)).toHaveLength(5);
    expect(xml).toContain(`tests="${cases}" failures="5" errors="0" skipped="0"`);
    expect(xml.indexOf('PAYLOAD_FIELD_MADE_REQUIRED [new client')).toBeLessThan(xml.indexOf('FRAME_REFUSED [new client'));
    expect(xml).toContain('<failure message="SnapshotStart.requestId: the new host no longer publishes requestId, 100% &amp; &lt;sure&gt;"');
    expect(xml).toContain('consequence of F1');
  });

  it('JUnit reports a could-not-compare as a failure, an internal error as an error', () => {
    const cannot = renderJunit(report([], { status: 'cannotCompare', exitCode: 2, error: { kind: 'cannotCompare', code: 'NO_BASELINE', message: 'NO_BASELINE: no release <found>' } }));
    assertWellFormedXml(cannot);
    expect(cannot).toContain('<failure message="NO_BASELINE: no release &lt;found&gt;"');
    const internal = renderJunit(report([], { status: 'internalError', exitCode: 2, error: { kind: 'internalError', message: 'TypeError: x is undefined' } }));
    expect(internal).toContain('<error message="TypeError: x is undefined"');
  });

  it('GitHub annotations: one ::error per finding with escaped data; stale entries warn', () => {
    const stale = { ruleId: 'OPCODE_REMOVED', direction: 'new client × old host', subject: 'Bell', reason: 'retired on purpose long ago', owner: '@wire-team', expires: '2027-01-01', unmatched: 'no OPCODE_REMOVED finding in this run' };
    const out = renderGithubAnnotations(report([stalled], { staleAcknowledgements: [stale] }));
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    // Properties escape ',' and ':'; data escapes only '%', CR and LF.
    expect(lines[0]).toMatch(/^::error title=JOURNEY_STALLED \(new client × old host%2C drop\)::step drop: step drop stalled: missing reconnect,%0Asecond line%0Afix: look at/);
    expect(out).not.toContain('(absent)'); // a stall records no expected/observed values
    expect(lines[1]).toBe('::warning file=compat/acknowledged-breaks.json,title=stale acknowledgement::OPCODE_REMOVED · new client × old host · Bell matched nothing (no OPCODE_REMOVED finding in this run); remove it');
    expect(renderStepSummary(report([stalled]))).toContain('| JOURNEY_STALLED | new client × old host | drop |');
  });

  it('GitHub annotations put root causes first: GitHub shows only the first 10 errors of a step', () => {
    const symptoms = Array.from({ length: 12 }, (_, i): Finding => ({ ...stalledAfter, step: 'drop', subject: `step drop ${i}`, message: `stall ${i}` }));
    const out = renderGithubAnnotations(report([...symptoms, ...fieldMadeRequired]));
    const errors = out.split('\n').filter((l) => l.startsWith('::error'));
    expect(errors.slice(0, 2).map((l) => /title=(\w+)/.exec(l)![1])).toEqual(['PAYLOAD_FIELD_MADE_REQUIRED', 'FIELD_STOPPED_PUBLISHING']);
    expect(errors[0]).toContain('acknowledge if intended: {');
    expect(errors.find((l) => l.includes('FRAME_REFUSED'))).toContain('consequence of PAYLOAD_FIELD_MADE_REQUIRED SnapshotStart.hiddenOutputReason');
  });

  it('GitHub annotations point at the opcode row or the schema field the finding names, from the working tree', () => {
    const locate = sourceLocator(process.cwd());
    const lineOf = (f: Finding) => {
      const at = locate(f)!;
      return `${at.file}: ${readFileSync(join(process.cwd(), at.file), 'utf8').split('\n')[at.line - 1]!.trim().slice(0, 40)}`;
    };
    expect(lineOf(removed)).toBe('src/codec/schemas.ts: requestId: z.string().optional(),');
    expect(lineOf(refused)).toMatch(/^src\/codec\/opcodes.ts: SnapshotStart: \{ code: 2/);
    expect(lineOf({ ...ungated, subject: 'capability inputAck' })).toBe('src/capabilities/registry.ts: inputAck: {');
    expect(locate(screen)).toBeUndefined(); // nothing to point at: no guess
    const out = renderGithubAnnotations({ ...report([removed]), findings: orderByRootCause([removed], locate) });
    expect(out).toMatch(/^::error file=src\/codec\/schemas.ts,line=\d+,title=FIELD_STOPPED_PUBLISHING/);
  });

  it('a gated frame sent by hand points at the one send of it without a capability check, else at the opcode row', () => {
    const root = mkdtempSync(join(tmpdir(), 'termwire-send-site-'));
    try {
      mkdirSync(join(root, 'src', 'host'), { recursive: true });
      writeFileSync(join(root, 'src', 'host', 'bell.ts'), "if (hasCapability(this.negotiated, 'bell')) this.send('Bell', {});\nthis.send('Bell', {});\n");
      const gated = { ...ungated, ruleId: 'GATED_FRAME_NOT_NEGOTIATED', subject: 'Bell' };
      expect(sourceLocator(root)(gated)).toEqual({ file: 'src/host/bell.ts', line: 2 });
      writeFileSync(join(root, 'src', 'host', 'again.ts'), "this.send('Bell', {});\n");
      expect(sourceLocator(root)(gated)).toBeUndefined(); // two candidates: no guess
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    // Every real send of SetOutputPaused checks its capability: the finding points at the opcode's row.
    expect(sourceLocator(process.cwd())({ ...ungated, ruleId: 'GATED_FRAME_NOT_NEGOTIATED', subject: 'SetOutputPaused' })?.file).toBe('src/codec/opcodes.ts');
  });

  it('text: findings and internal errors read differently; NO_COLOR-style output has no escapes', () => {
    const text = renderReport(report([removed]), 'text', false);
    expect(text).toContain('✗ FIELD_STOPPED_PUBLISHING  old client × new host · step hideReveal (reveal)');
    expect(text).toContain('- expected: "r1"');
    expect(text).toContain('+ observed: (absent)');
    expect(text).toContain('INCOMPATIBLE: 1 finding(s)');
    expect(text).not.toContain('\x1b[');
    const internal = renderReport(report([], { status: 'internalError', exitCode: 2, error: { kind: 'internalError', message: 'boom' } }), 'text', false);
    expect(internal).toContain('internal error');
    expect(internal).toContain('please report it');
    const cannot = renderReport(report([], { status: 'cannotCompare', exitCode: 2, error: { kind: 'cannotCompare', message: 'NO_BASELINE: x' } }), 'text', false);
    expect(cannot).toContain('could not compare (exit 2)');
    expect(cannot).not.toContain('INTERNAL');
  });

  it('acknowledged breaks do not fail; an entry matching nothing is stale; a rule that did not run proves nothing', () => {
    const held = { owner: '@wire-team', expires: '2027-01-01' };
    const acks = [
      { ruleId: 'FIELD_STOPPED_PUBLISHING', direction: 'old client × new host', subject: 'SnapshotStart.requestId', step: 'hideReveal', reason: 'requestId moved to the Metadata event in 2.0', ...held },
      { ruleId: 'OPCODE_REMOVED', direction: 'new client × old host', subject: 'Bell', reason: 'matches nothing in this run', ...held },
      { ruleId: 'FIELD_STOPPED_PUBLISHING', direction: 'new client × old host', subject: 'SnapshotStart.requestId', step: 'hideReveal', reason: 'wrong direction: must not match', ...held },
    ] as const;
    const [u, r] = orderByRootCause([removed, ungated]) as [ReportedFinding, ReportedFinding];
    const { failing, acknowledged, stale } = applyAcknowledgements([u, r], acks, ['OPCODE_REMOVED', 'FIELD_STOPPED_PUBLISHING', 'OPCODE_NEW_UNGATED'], TODAY);
    expect(failing).toEqual([u]);
    expect(acknowledged).toEqual([{ finding: r, entry: 'FIELD_STOPPED_PUBLISHING · old client × new host · SnapshotStart.requestId · step hideReveal', reason: acks[0].reason, ...held }]);
    expect(stale).toEqual([
      { ...acks[1], unmatched: 'no OPCODE_REMOVED finding in this run' },
      { ...acks[2], unmatched: 'direction: FIELD_STOPPED_PUBLISHING was found only in old client × new host' },
    ]);
    expect(applyAcknowledgements([], acks, ['OPCODE_REMOVED'], TODAY).stale.map((s) => s.reason)).toEqual([acks[1].reason]);
    // An entry for the other direction does not cover the finding.
    expect(applyAcknowledgements([r], [acks[2]], ['FIELD_STOPPED_PUBLISHING'], TODAY).failing).toEqual([r]);
  });
});
