import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AcknowledgedBreak, acknowledgementEntry, acknowledgementReportFields, applyAcknowledgements, loadAcknowledgedBreaks, loadGateAcknowledgements } from '../../compat/report/acknowledged.js';
import { renderGithubAnnotations, renderStepSummary } from '../../compat/report/github.js';
import { renderJunit } from '../../compat/report/junit.js';
import type { GateReport } from '../../compat/report/model.js';
import { renderReport } from '../../compat/report/render.js';
import { blindSpotsOf } from '../../compat/run-gate.js';
import { orderByRootCause } from '../../compat/report/root-causes.js';
import { activeRules } from '../../compat/rules/catalog.js';
import type { Finding } from '../../compat/rules/finding.js';

const TODAY = '2026-12-01';
const OLD_CLIENT = 'old client × new host' as const;
const held = { reason: 'the chunk split is intended in 2.0', owner: '@wire-team', expires: '2027-01-15' } as const;
const ALL_RULES = [...activeRules('static'), ...activeRules('dynamic')].map((r) => r.id);

// The case: one intended SnapshotChunk change, and a later unintended drop of the same frame.
const intended: Finding = {
  ruleId: 'FRAME_SEQUENCE_CHANGED', pass: 'dynamic', direction: OLD_CLIENT, subject: 'SnapshotChunk', step: 'hideReveal', occurrence: 'reveal',
  message: 'the new host wrote 3 SnapshotChunk frames where the reference wrote 2', evidence: { before: 2, after: 3 },
};
const unintended: Finding = { ...intended, step: 'resubscribe', occurrence: 'reconnect', message: 'the new host no longer sends SnapshotChunk on reconnect', evidence: { before: 2, after: 0 } };
const removedCapability: Finding = {
  ruleId: 'CAPABILITY_NO_LONGER_ADVERTISED', pass: 'static', direction: OLD_CLIENT, subject: 'capability outputPause',
  message: 'the host advertised outputPause=1 in the baseline and no longer advertises it', evidence: { before: { outputPause: 1 }, after: {} },
};

const entryFor = (f: Finding, extra: Partial<AcknowledgedBreak> = {}): AcknowledgedBreak => ({ ...acknowledgementEntry(f, TODAY), ...held, ...extra });

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function file(entries: unknown, name = 'acks.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-acks-'));
  dirs.push(dir);
  writeFileSync(join(dir, name), JSON.stringify(entries));
  return join(dir, name);
}
const loadError = (entries: unknown): string => {
  try {
    loadAcknowledgedBreaks(file(entries), TODAY);
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  throw new Error('expected the file to be refused');
};

describe('acknowledgement entries name rule, direction, subject and step', () => {
  it('an entry for one step does not silence the same frame breaking at another step', () => {
    const findings = orderByRootCause([intended, unintended]);
    const { failing, acknowledged } = applyAcknowledgements(findings, [entryFor(intended)], ALL_RULES, TODAY);
    expect(acknowledged.map((a) => a.finding.step)).toEqual(['hideReveal']);
    expect(failing.map((f) => [f.ruleId, f.subject, f.step])).toEqual([['FRAME_SEQUENCE_CHANGED', 'SnapshotChunk', 'resubscribe']]);
  });

  it('matching is exact on every field the entry names; an entry without an occurrence covers every occurrence of its step', () => {
    const [f] = orderByRootCause([intended]);
    const covers = (extra: Partial<AcknowledgedBreak>) => applyAcknowledgements([f!], [entryFor(intended, extra)], ALL_RULES, TODAY).acknowledged.length === 1;
    expect(covers({})).toBe(true);
    expect(covers({ occurrence: undefined })).toBe(true);
    expect(covers({ occurrence: 'reconnect' })).toBe(false);
    expect(covers({ step: undefined })).toBe(false); // no step is not "any step"
    expect(covers({ subject: 'SnapshotStart' })).toBe(false);
    expect(covers({ direction: 'new client × old host' })).toBe(false);
    expect(covers({ ruleId: 'FIELD_VALUE_CHANGED' })).toBe(false);
  });

  it('explore and matrix findings match the same entry: neither the seed nor the baseline is part of it', () => {
    const explored: Finding = { ...intended, explore: { seed: 12058, moves: ['hideReveal', 'drop'] }, baseline: 'v0.1.0' };
    const matrix: Finding = { ...intended, baseline: 'v0.2.0' };
    const { failing, acknowledged } = applyAcknowledgements(orderByRootCause([explored, matrix]), [entryFor(intended)], ALL_RULES, TODAY);
    expect(failing).toEqual([]);
    expect(acknowledged).toHaveLength(2);
  });

  it('a root cause acknowledged covers the findings it explains', () => {
    const refused: Finding = { ruleId: 'FRAME_REFUSED', pass: 'dynamic', direction: 'new client × old host', subject: 'SnapshotStart', step: 'initialSnapshot', occurrence: 'initial', message: 'refused', evidence: {} };
    const cause: Finding = { ruleId: 'PAYLOAD_FIELD_MADE_REQUIRED', pass: 'static', direction: 'new client × old host', subject: 'SnapshotStart.hiddenOutputReason', message: 'required now', evidence: {} };
    const { failing, acknowledged } = applyAcknowledgements(orderByRootCause([refused, cause]), [entryFor(cause)], ALL_RULES, TODAY);
    expect(failing).toEqual([]);
    expect(acknowledged[1]).toMatchObject({ finding: { ruleId: 'FRAME_REFUSED' }, owner: '@wire-team', expires: '2027-01-15', reason: expect.stringMatching(/^consequence of PAYLOAD_FIELD_MADE_REQUIRED/) });
  });

  it('one entry acknowledges a root cause and what it explains in the directions it names, and only there', () => {
    const removed: Finding = { ruleId: 'PAYLOAD_FIELD_REMOVED', pass: 'static', direction: OLD_CLIENT, subject: 'Metadata.[type=subscribed].truncated', message: 'gone', evidence: {} };
    const required: Finding = { ruleId: 'PAYLOAD_FIELD_MADE_REQUIRED', pass: 'static', direction: 'new client × old host', subject: 'Metadata.[type=subscribed].clipped', message: 'required now', evidence: {} };
    const refused = (direction: Finding['direction']): Finding => ({ ruleId: 'FRAME_REFUSED', pass: 'dynamic', direction, subject: 'byte stream Metadata', step: 'subscribe', message: 'refused', evidence: {} });
    const ordered = orderByRootCause([removed, required, refused(OLD_CLIENT), refused('new client × old host')]);
    const pasted = { ...acknowledgementEntry(removed, TODAY, [...new Set(ordered.map((f) => f.direction))]), ...held };
    expect(pasted.directions).toEqual([OLD_CLIENT, 'new client × old host']);
    expect(loadAcknowledgedBreaks(file([pasted]), TODAY)).toHaveLength(1);
    expect(applyAcknowledgements(ordered, [pasted], ALL_RULES, TODAY)).toMatchObject({ failing: [], acknowledged: { length: 4 } });
    const oneWay = applyAcknowledgements(ordered, [{ ...pasted, directions: [OLD_CLIENT] }], ALL_RULES, TODAY);
    expect(oneWay.failing.map((f) => [f.ruleId, f.direction])).toEqual([['PAYLOAD_FIELD_MADE_REQUIRED', 'new client × old host'], ['FRAME_REFUSED', 'new client × old host']]);
    expect(loadError([{ ...pasted, directions: ['new client × old host'] }])).toContain('must include its own direction (old client × new host)');
  });

  it('the pasted entry names the step and occurrence of a dynamic finding, none for a static one, an owner placeholder and an expiry 90 days out', () => {
    expect(acknowledgementEntry(intended, TODAY)).toEqual({
      ruleId: 'FRAME_SEQUENCE_CHANGED', direction: OLD_CLIENT, subject: 'SnapshotChunk', step: 'hideReveal', occurrence: 'reveal',
      reason: 'TODO: say why this break is intended', owner: 'TODO: who answers for this break', expires: '2027-03-01',
    });
    expect(acknowledgementEntry(removedCapability, TODAY)).not.toHaveProperty('step');
    // Filled in, it loads.
    expect(loadAcknowledgedBreaks(file([entryFor(intended), entryFor(removedCapability)]), TODAY)).toHaveLength(2);
  });
});

describe('the acknowledgements file is checked', () => {
  it('an entry in the old format is refused, naming the entry and what to add', () => {
    const message = loadError([{ ruleId: 'FRAME_SEQUENCE_CHANGED', direction: OLD_CLIENT, subject: 'SnapshotChunk', reason: 'the chunk split is intended' }]);
    expect(message).toMatch(/^BAD_ACKNOWLEDGEMENTS: /);
    expect(message).toContain('entry 0 (FRAME_SEQUENCE_CHANGED · old client × new host · SnapshotChunk) is in the old format: add "owner" (who answers for the break), "expires" (YYYY-MM-DD, at most 180 days ahead), and "step" (the journey step the finding names)');
    // Without a subject, too: an entry no longer covers a whole rule.
    expect(loadError([{ ruleId: 'CAPABILITY_REMOVED', direction: OLD_CLIENT, reason: 'the capability is retired', owner: '@a', expires: '2027-01-01' }])).toContain('add "subject"');
  });

  it.each([
    ['a step on a static rule', { step: 'subscribe' }, 'step: CAPABILITY_NO_LONGER_ADVERTISED is a static rule: its findings have no step or occurrence'],
    ['an expiry past 180 days', { expires: '2027-05-31' }, 'expires: 2027-05-31 is more than 180 days ahead (latest allowed today: 2027-05-30)'],
    ['a date that is not one', { expires: '2027-02-30' }, 'expires: not a calendar date'],
    ['an empty owner', { owner: '  ' }, 'owner: name who answers for the break'],
    ['a field the format does not have', { baseline: 'v0.1.0' }, '"baseline"'],
    ['a step that does not exist', { step: 'nowhere' }, 'step: Invalid option'],
  ])('%s is refused', (_name, change, why) => {
    expect(loadError([{ ...entryFor(removedCapability), ...change }])).toContain(why);
  });

  it('the example in docs/compatibility.md is a valid file', () => {
    const docs = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'compatibility.md'), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(docs.slice(docs.indexOf('## Acknowledging an intended break')))![1]!;
    expect(loadAcknowledgedBreaks(file(JSON.parse(example)), TODAY).map((a) => a.step ?? 'no step')).toEqual(['no step', 'hideReveal']);
  });

  it('an expiry exactly 180 days ahead is accepted', () => {
    expect(loadAcknowledgedBreaks(file([entryFor(removedCapability, { expires: '2027-05-30' })]), TODAY)).toHaveLength(1);
  });

  it('every problem is listed, one line each', () => {
    const message = loadError([entryFor(removedCapability, { owner: '' }), entryFor(intended, { expires: 'soon' })]);
    expect(message.split('\n').slice(1).map((l) => l.trim().replace(/ \(.*?\)/, ''))).toEqual([
      'entry 0 owner: name who answers for the break (a person or a team)',
      'entry 1 expires: expected a date as YYYY-MM-DD',
    ]);
  });
});

describe('expiry', () => {
  const [f] = orderByRootCause([removedCapability]);

  it('an entry holds through its expiry day and lapses the day after: the finding fails again, and the entry is named', () => {
    const entry = entryFor(removedCapability, { expires: TODAY });
    expect(applyAcknowledgements([f!], [entry], ALL_RULES, TODAY)).toMatchObject({ failing: [], expired: [] });
    const after = applyAcknowledgements([f!], [entry], ALL_RULES, '2026-12-02');
    expect(after.failing).toEqual([f]);
    expect(after.expired).toEqual([{ ...entry, findings: ['F1'] }]);
    expect(after.stale).toEqual([]);
  });

  it('an expired entry that matches nothing is stale (remove it), not a failure: its removal must be able to pass', () => {
    const { expired, stale } = applyAcknowledgements([], [entryFor(removedCapability, { expires: '2026-11-01' })], ALL_RULES, TODAY);
    expect(expired).toEqual([]);
    expect(stale[0]!.unmatched).toBe('no CAPABILITY_NO_LONGER_ADVERTISED finding in this run; it also expired on 2026-11-01');
  });

  it('an entry in use within 14 days of its expiry is reported, so it is renewed while it still holds', () => {
    const soon = applyAcknowledgements([f!], [entryFor(removedCapability, { expires: '2026-12-15' })], ALL_RULES, TODAY);
    expect(soon.expiring.map((e) => e.daysLeft)).toEqual([14]);
    expect(applyAcknowledgements([f!], [entryFor(removedCapability, { expires: '2026-12-16' })], ALL_RULES, TODAY).expiring).toEqual([]);
  });
});

describe('a stale entry says which field failed to match', () => {
  const findings = orderByRootCause([intended]);
  it.each([
    [{ direction: 'new client × old host' }, 'direction: FRAME_SEQUENCE_CHANGED was found only in old client × new host'],
    [{ subject: 'SnapshotEnd' }, 'subject: FRAME_SEQUENCE_CHANGED in old client × new host was found for SnapshotChunk, not SnapshotEnd'],
    [{ step: 'drop' }, 'step: SnapshotChunk was found at step hideReveal, the entry names step drop'],
    [{ step: undefined, occurrence: undefined }, 'step: SnapshotChunk was found at step hideReveal, the entry names no step'],
    [{ occurrence: 'initial' }, 'occurrence: SnapshotChunk was found in occurrence reveal, not initial'],
  ] as const)('%o', (change, why) => {
    const { stale } = applyAcknowledgements(findings, [entryFor(intended, change as Partial<AcknowledgedBreak>)], ALL_RULES, TODAY);
    expect(stale.map((s) => s.unmatched)).toEqual([why]);
  });

  it('a second entry for a finding another entry already acknowledges', () => {
    const { stale } = applyAcknowledgements(findings, [entryFor(intended), entryFor(intended, { reason: 'the same break, written down twice' })], ALL_RULES, TODAY);
    expect(stale.map((s) => s.unmatched)).toEqual(['an earlier entry acknowledges the same finding(s)']);
  });
});

describe('the trusted acknowledgements file (--acknowledgements)', () => {
  function tree(entries?: unknown): string {
    const root = mkdtempSync(join(tmpdir(), 'termwire-acks-root-'));
    dirs.push(root);
    if (entries !== undefined) {
      mkdirSync(join(root, 'compat'));
      writeFileSync(join(root, 'compat', 'acknowledged-breaks.json'), JSON.stringify(entries));
    }
    return root;
  }
  const now = new Date(`${TODAY}T18:00:00Z`);

  it('by default the judged tree\'s own file applies', () => {
    const root = tree([entryFor(removedCapability)]);
    expect(loadGateAcknowledgements(root, undefined, now)).toEqual({ entries: [entryFor(removedCapability)], today: TODAY });
  });

  it('given a file, only that file applies; what the judged tree adds is counted, not applied', () => {
    const root = tree([entryFor(removedCapability), entryFor(intended)]);
    const base = file([entryFor(intended)]);
    expect(loadGateAcknowledgements(root, base, now)).toEqual({ entries: [entryFor(intended)], today: TODAY, file: { path: base, found: true, notApplied: 1 } });
  });

  it('a given file that does not exist acknowledges nothing (the base branch had none)', () => {
    const root = tree([entryFor(removedCapability)]);
    const missing = join(root, 'no-such-acks.json');
    expect(loadGateAcknowledgements(root, missing, now)).toEqual({ entries: [], today: TODAY, file: { path: missing, found: false, notApplied: 1 } });
  });

  it('the judged tree\'s own file is still checked, so what a pull request adds is valid once merged', () => {
    const root = tree([{ ruleId: 'CAPABILITY_REMOVED', direction: OLD_CLIENT, subject: 'capability x', reason: 'an entry in the old format' }]);
    expect(() => loadGateAcknowledgements(root, file([]), now)).toThrow(/the judged tree's compat\/acknowledged-breaks.json \(checked, not applied\):\n {2}entry 0 .* is in the old format/);
  });
});

describe('reports show expiry', () => {
  const [f] = orderByRootCause([removedCapability]);
  const entry = entryFor(removedCapability, { expires: '2026-11-30' });
  const outcome = applyAcknowledgements([f!], [entry], ALL_RULES, TODAY);
  const report: GateReport = {
    status: 'incompatible', exitCode: 1, baselines: [{ label: 'v1.0.0', commit: 'f'.repeat(40), version: '1.0.0' }], staticOnly: true, rulesRun: activeRules('static').map((r) => r.id),
    findings: outcome.failing, acknowledged: outcome.acknowledged, staleAcknowledgements: outcome.stale,
    ...acknowledgementReportFields({ entries: [entry], today: TODAY, file: { path: '/tmp/base/acknowledged-breaks.json', found: true, notApplied: 2 } }, outcome),
  };

  it('text names the expired entry, its owner and the date, and which file applied', () => {
    const text = renderReport(report, 'text', false);
    expect(text).toContain('acknowledgements: from /tmp/base/acknowledged-breaks.json; 2 entries of this tree\'s compat/acknowledged-breaks.json not in it apply only once reviewed and merged');
    expect(text).toContain('✗ expired acknowledgement CAPABILITY_NO_LONGER_ADVERTISED · old client × new host · capability outputPause (owner @wire-team) expired on 2026-11-30: F1 fails again');
    expect(text).toContain('INCOMPATIBLE: 1 finding(s) from 1 root cause(s), 0 acknowledged, 0 stale acknowledgement(s), 1 expired acknowledgement(s)');
    // The pasted entry for the failing finding expires 90 days after the report's day.
    expect(text).toContain('"expires":"2027-03-01"');
  });

  it('JSON carries the expired entry; GitHub gets an ::error on the file; JUnit a failing case', () => {
    expect(JSON.parse(renderReport(report, 'json', false)).expiredAcknowledgements).toEqual([{ ...entry, findings: ['F1'] }]);
    expect(renderGithubAnnotations(report)).toContain('::error file=compat/acknowledged-breaks.json,title=expired acknowledgement::CAPABILITY_NO_LONGER_ADVERTISED · old client × new host · capability outputPause (owner @wire-team) expired on 2026-11-30: F1 fail again');
    expect(renderStepSummary(report)).toContain('- expired acknowledgement CAPABILITY_NO_LONGER_ADVERTISED · old client × new host · capability outputPause (owner @wire-team) expired on 2026-11-30');
    const xml = renderJunit(report);
    expect(xml).toMatch(/<testcase classname="termwire.compat.acknowledgements" name="expired acknowledgement CAPABILITY_NO_LONGER_ADVERTISED [^"]*"><failure message="expired on 2026-11-30 \(owner @wire-team\): F1 fail again">/);
    expect(xml).toContain('failures="2"');
  });

  it('an acknowledged finding shows its owner and expiry; one close to expiry is flagged', () => {
    const live = entryFor(removedCapability, { expires: '2026-12-10' });
    const ok = applyAcknowledgements([f!], [live], ALL_RULES, TODAY);
    const text = renderReport({ ...report, status: 'compatible', exitCode: 0, findings: ok.failing, acknowledged: ok.acknowledged, staleAcknowledgements: [], ...acknowledgementReportFields({ entries: [live], today: TODAY }, ok), expiredAcknowledgements: undefined, acknowledgementsFile: undefined }, 'text', false);
    expect(text).toContain('~ acknowledged CAPABILITY_NO_LONGER_ADVERTISED · old client × new host · capability outputPause (owner @wire-team, until 2026-12-10): 1 finding(s) in old client × new host; the chunk split is intended in 2.0');
    const verbose = renderReport({ ...report, status: 'compatible', exitCode: 0, findings: ok.failing, acknowledged: ok.acknowledged, staleAcknowledgements: [], expiredAcknowledgements: undefined, acknowledgementsFile: undefined }, 'text', false, true);
    expect(verbose).toContain('acknowledged (owner @wire-team, until 2026-12-10): the chunk split is intended in 2.0');
    expect(text).toContain('! acknowledgement CAPABILITY_NO_LONGER_ADVERTISED · old client × new host · capability outputPause (owner @wire-team) expires on 2026-12-10, in 9 day(s): renew it before then');
  });
});

describe('an acknowledged break that stops a direction says so in a summary line', () => {
  const stall: Finding = { ruleId: 'JOURNEY_STALLED', pass: 'dynamic', direction: OLD_CLIENT, subject: 'step subscribe', step: 'subscribe', message: 'stalled', evidence: {} };
  const cause: Finding = { ruleId: 'PAYLOAD_FIELD_REMOVED', pass: 'static', direction: OLD_CLIENT, subject: 'Metadata.[type=subscribed].truncated', message: 'gone', evidence: {} };
  const count = (exercised: number, applicable: number) => ({ exercised, applicable, exempt: 0 });
  const coverage = [{ baseline: 'v0.2.0', uncovered: [], notApplicable: [], directions: [{ direction: OLD_CLIENT, counts: { opcode: count(5, 17), field: count(10, 42), event: count(1, 4), flag: count(0, 3), error: count(0, 13), capability: count(0, 5) } }] }];

  it('names the direction, the step, the entry and the share of the surface left unwalked', () => {
    const refused: Finding = { ...stall, ruleId: 'FRAME_REFUSED', subject: 'Metadata', message: 'refused' };
    const ordered = orderByRootCause([cause, refused, stall]);
    const { acknowledged } = applyAcknowledgements(ordered, [entryFor(cause)], ALL_RULES, TODAY);
    const spots = blindSpotsOf(acknowledged, coverage);
    expect(spots).toEqual([{ direction: OLD_CLIENT, step: 'subscribe', entry: 'PAYLOAD_FIELD_REMOVED · old client × new host · Metadata.[type=subscribed].truncated', unwalkedPercent: 81, coverage: 'opcodes 5/17, fields 10/42, events 1/4, flags 0/3, error codes 0/13, capabilities 0/5' }]);
    const text = renderReport({ status: 'compatible', exitCode: 0, baselines: [], staticOnly: false, rulesRun: [], findings: [], acknowledged, staleAcknowledgements: [], blindSpots: spots }, 'text', false);
    expect(text).toContain('blind spot: old client × new host is judged only up to step subscribe, where the acknowledged PAYLOAD_FIELD_REMOVED · old client × new host · Metadata.[type=subscribed].truncated stops its journeys: 81% of its surface went unwalked');
  });

  it('says nothing where no acknowledged stall stopped a journey, or the direction was walked whole', () => {
    expect(blindSpotsOf([], coverage)).toEqual([]);
    const { acknowledged } = applyAcknowledgements(orderByRootCause([cause, { ...stall, ruleId: 'FRAME_REFUSED', subject: 'Metadata' }, stall]), [entryFor(cause)], ALL_RULES, TODAY);
    expect(acknowledged).toHaveLength(3);
    const whole = [{ ...coverage[0]!, directions: [{ direction: OLD_CLIENT, counts: { opcode: count(17, 17), field: count(42, 42), event: count(4, 4), flag: count(3, 3), error: count(13, 13), capability: count(5, 5) } }] }];
    expect(blindSpotsOf(acknowledged, whole)).toEqual([]);
  });
});
