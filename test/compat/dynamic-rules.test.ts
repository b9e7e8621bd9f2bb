import { describe, expect, it } from 'vitest';
import { activeRules } from '../../compat/rules/catalog.js';
import { DYNAMIC_RULES, runDynamicRules } from '../../compat/rules/dynamic/run-dynamic.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import type { JourneyRecordingSet } from '../../compat/recording.js';
import { CAPS, editFrames, healthySet } from './helpers/recordings.js';

// Advertised sets pinned to the recordings' world: the rules are under test here, not this build's defaults.
const manifest = (): WireManifest => ({ ...structuredClone(buildManifest('1.0.0')), advertised: { host: { ...CAPS }, client: { ...CAPS } } });
const manifests = () => ({ old: manifest(), new: manifest() });
const run = (set: JourneyRecordingSet, m = manifests()) => runDynamicRules(set, m);
const summary = (set: JourneyRecordingSet, m = manifests()) =>
  run(set, m).map((f) => [f.ruleId, f.direction, f.step ?? '-', f.occurrence ?? '-', f.subject].join(' | '));

const withPayload = (p: unknown, extra: Record<string, unknown>) => ({ ...(p as object), ...extra });
const without = (p: unknown, key: string) => Object.fromEntries(Object.entries(p as object).filter(([k]) => k !== key));

describe('dynamic rules', () => {
  it('a healthy journey has no findings', () => {
    expect(summary(healthySet())).toEqual([]);
  });

  it('an added optional field published by the new host stays green', () => {
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'SnapshotStart' ? { ...f, payload: withPayload(f.payload, { hiddenOutputReason: 'paused' }) } : f));
    expect(summary(set)).toEqual([]);
  });

  it('output split differently by the PTY is not a sequence change', () => {
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'Output' && f.step === 'liveOutput' && f.payload === '$ ' ? null : f));
    expect(summary(set)).toEqual([]);
  });

  it('output landing in the next step (PTY timing) is not a sequence change', () => {
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'Output' && f.step === 'input' ? { ...f, step: 'liveOutput' } : f));
    expect(summary(set)).toEqual([]);
  });

  it('an extra snapshot in another step does not shift the field comparison of later occurrences', () => {
    const set = healthySet();
    const start = set.oldClientNewHost.frames.find((f) => f.opcodeName === 'SnapshotStart')!;
    // A recovery snapshot during live output, publishing fewer fields than the reveal one.
    set.oldClientNewHost.frames.unshift({ ...start, step: 'liveOutput', occurrence: undefined as never, index: 500, payload: { kind: 'recovery', cols: 80, rows: 24 } });
    const rules = run(set).map((f) => f.ruleId);
    expect(rules).not.toContain('FIELD_STOPPED_PUBLISHING');
    expect(rules).toContain('FRAME_SEQUENCE_CHANGED');
  });

  it('FRAME_REFUSED names the pairing, step and opcode', () => {
    const set = editFrames(healthySet(), 'newClientOldHost', (f) =>
      f.opcodeName === 'SnapshotRequest' ? { ...f, refusedBy: { code: 'SCHEMA_MISMATCH', message: 'scrollbackRows: expected number' } } : f,
    );
    expect(summary(set)).toEqual(['FRAME_REFUSED | new client × old host | hideReveal | - | SnapshotRequest']);
  });

  it('JOURNEY_STALLED names the step and what was missing', () => {
    const set = healthySet();
    set.oldClientNewHost.steps[5] = { name: 'drop', status: 'stalled', missing: 'client saw the transport close', durationMs: 5000 };
    const [f] = run(set);
    expect(f).toMatchObject({ ruleId: 'JOURNEY_STALLED', direction: 'old client × new host', step: 'drop' });
    expect(f!.message).toContain('client saw the transport close');
  });

  it('FRAME_SEQUENCE_CHANGED: the new host stops sending SnapshotEnd on reveal (old reader expectation from old × old)', () => {
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'SnapshotEnd' && f.occurrence === 'reveal' ? null : f));
    expect(summary(set)).toEqual(['FRAME_SEQUENCE_CHANGED | old client × new host | hideReveal | - | new host frames']);
    const [f] = run(set);
    expect(f!.evidence.before).toEqual(['SnapshotStart@s1', 'SnapshotChunk@s1', 'SnapshotEnd@s1']);
    expect(f!.evidence.after).toEqual(['SnapshotStart@s1', 'SnapshotChunk@s1']);
    expect(f!.evidence.basis).toContain('old × old');
  });

  it('FRAME_SEQUENCE_CHANGED: the old client reacts to the new host by asking for an extra snapshot', () => {
    const set = healthySet();
    const extra = { ...set.oldClientNewHost.frames.find((f) => f.opcodeName === 'SnapshotRequest')!, step: 'liveOutput' as const, index: 999 };
    set.oldClientNewHost.frames.push(extra);
    expect(summary(set)).toEqual(['FRAME_SEQUENCE_CHANGED | old client × new host | liveOutput | - | old client frames']);
  });

  it('FRAME_SEQUENCE_CHANGED: gated frames count only where both runs negotiated the capability', () => {
    // The old host did not echo outputPause here, so the new client correctly never sent SetOutputPaused.
    let set = healthySet();
    for (const key of ['newClientOldHost', 'oldOld'] as const) {
      set[key].negotiated = { ackOutput: 1, writeUnavailable: 1 };
      set = editFrames(set, key, (f) => (f.opcodeName === 'SetOutputPaused' ? null : f));
    }
    const m = manifests();
    delete m.old.advertised.host.outputPause;
    expect(summary(set, m)).toEqual([]);
  });

  it('stream ids are compared by order of use, not by value', () => {
    const set = editFrames(healthySet(), 'newClientOldHost', (f) => ({ ...f, streamId: f.streamId === 0 ? 0 : f.streamId + 40 }));
    expect(summary(set)).toEqual([]);
  });

  it('FIELD_STOPPED_PUBLISHING: compared per occurrence, so a sibling that still publishes cannot mask it', () => {
    // requestId only ever appears on the reveal snapshot; drop it there and only there.
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) =>
      f.opcodeName === 'SnapshotStart' && f.occurrence === 'reveal' ? { ...f, payload: without(f.payload, 'requestId') } : f,
    );
    expect(summary(set)).toEqual(['FIELD_STOPPED_PUBLISHING | old client × new host | hideReveal | reveal | SnapshotStart.requestId']);
    // Dropping `source` from the reconnect snapshot alone is still found although initial and reveal publish it.
    const reconnect = editFrames(healthySet(), 'oldClientNewHost', (f) =>
      f.opcodeName === 'SnapshotStart' && f.occurrence === 'reconnect' ? { ...f, payload: without(f.payload, 'source') } : f,
    );
    const [f] = run(reconnect);
    expect(f).toMatchObject({ ruleId: 'FIELD_STOPPED_PUBLISHING', occurrence: 'reconnect', subject: 'SnapshotStart.source', evidence: { before: 'headless' } });
  });

  it('FIELD_STOPPED_PUBLISHING: the subscribed event is keyed by its type; the new client is judged against the old client', () => {
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) =>
      f.opcodeName === 'Metadata' && f.step === 'resubscribe' ? { ...f, payload: without(f.payload, 'truncated') } : f,
    );
    expect(summary(set)).toEqual(['FIELD_STOPPED_PUBLISHING | old client × new host | resubscribe | - | Metadata[type=subscribed].truncated']);
    const client = editFrames(healthySet(), 'newClientOldHost', (f) => (f.opcodeName === 'Subscribe' && f.step === 'subscribe' ? { ...f, payload: without(f.payload, 'capabilities') } : f));
    expect(summary(client)).toContain('FIELD_STOPPED_PUBLISHING | new client × old host | subscribe | - | Subscribe.capabilities');
  });

  it('CAPABILITY_ECHO_MISMATCH: the echo must equal the intersection of both manifests', () => {
    const set = healthySet();
    set.newClientOldHost.negotiated = { ackOutput: 1 };
    // The hand-made journey still pauses, so the un-negotiated SetOutputPaused is flagged too.
    expect(summary(set).sort()).toEqual([
      'CAPABILITY_ECHO_MISMATCH | new client × old host | subscribe | - | capabilities',
      'GATED_FRAME_NOT_NEGOTIATED | new client × old host | hideReveal | - | SetOutputPaused',
    ]);
    const missing = healthySet();
    missing.oldOld.negotiated = undefined;
    expect(summary(missing).sort()).toEqual([
      'CAPABILITY_ECHO_MISMATCH | old client × old host | subscribe | - | capabilities',
      'GATED_FRAME_NOT_NEGOTIATED | old client × old host | hideReveal | - | SetOutputPaused',
    ]);
    // An old host that never advertised inputAck is right not to echo it to a new client that does.
    const m = manifests();
    m.new.advertised.client.inputAck = 1;
    m.new.advertised.host.inputAck = 1;
    const good = healthySet();
    good.newNew.negotiated = { ...good.newNew.negotiated, inputAck: 1 };
    expect(summary(good, m)).toEqual([]);
  });

  it('INPUT_NOT_EXACTLY_ONCE: a duplicated keystroke', () => {
    const set = healthySet();
    set.newClientOldHost.input.reachedTerminal = 'echo hi\rexit\rexit\r';
    const [f] = run(set);
    expect(f).toMatchObject({ ruleId: 'INPUT_NOT_EXACTLY_ONCE', direction: 'new client × old host' });
    expect(f!.message).toContain('first difference at character 13');
  });

  it('SCREEN_MISMATCH names the first differing line', () => {
    const set = healthySet();
    set.oldClientNewHost.screens.client = '$ echo hi\nHI\n$ ';
    const [f] = run(set);
    expect(f).toMatchObject({ ruleId: 'SCREEN_MISMATCH', direction: 'old client × new host', evidence: { before: 'hi', after: 'HI', line: 2 } });
  });

  it('every active dynamic rule in the catalog runs', () => {
    expect(Object.keys(DYNAMIC_RULES).sort()).toEqual(activeRules('dynamic').map((r) => r.id).sort());
  });
});
