import { describe, expect, it } from 'vitest';
import { applyAcknowledgements } from '../../compat/report/acknowledged.js';
import { orderByRootCause, standingIn } from '../../compat/report/root-causes.js';
import type { Finding } from '../../compat/rules/finding.js';
import { classifyFrame } from '../../compat/peer/codec-peer.js';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';

// The findings below are the ones the real gate reported for each planted
// break (the `outputPause` advertisement dropped; a new client requiring a
// field of `subscribed` that old hosts leave out), shortened to what matters.
const oldClient = 'old client × new host' as const;
const newClient = 'new client × old host' as const;
const dyn = (ruleId: string, direction: Finding['direction'], step: Finding['step'], subject: string, evidence: Finding['evidence'] = {}): Finding => ({ ruleId, pass: 'dynamic', direction, step, subject, message: `${ruleId} ${subject}`, evidence });

describe('one intended break, one root cause', () => {
  const pauseDropped: Finding[] = [
    { ruleId: 'CAPABILITY_NO_LONGER_ADVERTISED', pass: 'static', direction: oldClient, subject: 'capability outputPause', message: 'the host advertised outputPause=1 in the baseline and no longer advertises it', evidence: { before: { outputPause: 1 }, after: {} } },
    dyn('FIELD_VALUE_CHANGED', oldClient, 'hideReveal', 'SnapshotStart.cause', { before: 'resume', after: 'request' }),
    dyn('FRAME_NO_LONGER_SENT', oldClient, 'hideReveal', 'SnapshotChunk'),
    dyn('FRAME_NO_LONGER_SENT', oldClient, 'hideReveal', 'SnapshotEnd'),
    dyn('FRAME_NO_LONGER_SENT', oldClient, 'hideReveal', 'SnapshotStart'),
    dyn('GATED_FRAME_NOT_NEGOTIATED', 'new client × new host', 'limitsReached', 'SetOutputPaused', { capability: 'outputPause' }),
    dyn('GATED_FRAME_NOT_NEGOTIATED', oldClient, 'limitsReached', 'SetOutputPaused', { capability: 'outputPause' }),
  ];

  it('a capability no longer advertised explains what its absence changes, and one entry acknowledges them all', () => {
    const ordered = orderByRootCause(pauseDropped);
    const roots = ordered.filter((f) => f.causedBy === undefined);
    expect(roots.map((f) => f.ruleId)).toEqual(['CAPABILITY_NO_LONGER_ADVERTISED']);
    expect(ordered.filter((f) => f.causedBy === roots[0]!.id)).toHaveLength(6);
    const entry = { ruleId: 'CAPABILITY_NO_LONGER_ADVERTISED', direction: oldClient, subject: 'capability outputPause', reason: 'pausing moved to a new capability', owner: '@termwire/maintainers', expires: '2027-01-31' };
    const { failing, acknowledged } = applyAcknowledgements(ordered, [entry], ordered.map((f) => f.ruleId), '2026-12-01');
    expect(failing).toEqual([]);
    expect(acknowledged).toHaveLength(7);
  });

  it('does not explain a publishing change in another pairing, or a gated frame of another capability', () => {
    const unrelated = [dyn('FRAME_NO_LONGER_SENT', newClient, 'hideReveal', 'SnapshotChunk'), dyn('GATED_FRAME_NOT_NEGOTIATED', oldClient, 'drop', 'WriteUnavailable', { capability: 'writeUnavailable' })];
    const ordered = orderByRootCause([pauseDropped[0]!, ...unrelated]);
    expect(ordered.filter((f) => f.causedBy === undefined)).toHaveLength(3);
  });

  it('a client refusing the subscribed event explains the missing echo and the stalls under the field made required', () => {
    const refusal = (step: Finding['step']) => dyn('FRAME_REFUSED', newClient, step, 'Metadata', { refusedBy: { code: 'BAD_EVENT' } });
    const ordered = orderByRootCause([
      { ruleId: 'PAYLOAD_FIELD_MADE_REQUIRED', pass: 'static', direction: newClient, subject: 'Metadata.[type=subscribed].hostName', message: 'required now', evidence: { before: 'absent', after: 'required' } },
      refusal('subscribe'),
      dyn('CAPABILITY_ECHO_MISMATCH', newClient, 'subscribe', 'capabilities', { before: {}, after: null }),
      dyn('JOURNEY_STALLED', newClient, 'subscribe', 'step subscribe'),
    ]);
    expect(ordered.filter((f) => f.causedBy === undefined).map((f) => f.ruleId)).toEqual(['PAYLOAD_FIELD_MADE_REQUIRED']);
  });

  it('a gated frame sent without its capability and refused for it is one cause: the send', () => {
    const ordered = orderByRootCause([dyn('GATED_FRAME_NOT_NEGOTIATED', oldClient, 'hideReveal', 'WriteUnavailable', { capability: 'writeUnavailable', frameIndex: 40 }), dyn('FRAME_REFUSED', oldClient, 'hideReveal', 'WriteUnavailable', { frameIndex: 40 })]);
    expect(ordered.map((f) => [f.ruleId, f.causedBy ?? null])).toEqual([
      ['GATED_FRAME_NOT_NEGOTIATED', null],
      ['FRAME_REFUSED', 'F1'],
    ]);
  });
});

describe('one field renamed, one root cause in every direction, transport and pass', () => {
  // The case: `truncated` of `subscribed` renamed. The new host leaves the old name out, the new client wants the new one.
  const removed: Finding = { ruleId: 'PAYLOAD_FIELD_REMOVED', pass: 'static', direction: oldClient, subject: 'Metadata.[type=subscribed].truncated', message: 'gone', evidence: {} };
  const required: Finding = { ruleId: 'PAYLOAD_FIELD_MADE_REQUIRED', pass: 'static', direction: newClient, subject: 'Metadata.[type=subscribed].clipped', message: 'required now', evidence: { before: 'absent', after: 'required' } };
  const rename = [
    removed,
    required,
    dyn('FRAME_REFUSED', oldClient, 'subscribe', 'Metadata'),
    dyn('FRAME_REFUSED', newClient, 'subscribe', 'Metadata'),
    dyn('FRAME_REFUSED', oldClient, 'subscribe', 'byte stream Metadata'),
    dyn('FRAME_REFUSED', newClient, 'subscribe', 'byte stream Metadata'),
    dyn('JOURNEY_STALLED', newClient, 'subscribe', 'byte stream step subscribe'),
    dyn('FIELD_STOPPED_PUBLISHING', oldClient, 'subscribe', 'Metadata[type=subscribed].truncated'),
  ];

  it('the removal is the cause; the requirement of the new name, and every refusal over WebSocket and the byte stream, sit under it', () => {
    const ordered = orderByRootCause(rename);
    expect(ordered.filter((f) => f.causedBy === undefined).map((f) => f.ruleId)).toEqual(['PAYLOAD_FIELD_REMOVED']);
    expect(ordered).toHaveLength(rename.length);
  });

  it('a field removed and another made required in different objects are two causes', () => {
    const elsewhere = { ...required, subject: 'SnapshotStart.clipped' };
    expect(orderByRootCause([removed, elsewhere]).filter((f) => f.causedBy === undefined)).toHaveLength(2);
  });

  it('the same break at the same step seen by another explore journey repeats it; at another step it is a finding of its own', () => {
    const first = dyn('FIELD_VALUE_CHANGED', oldClient, 'hideReveal', 'SnapshotStart.cause');
    const seen = { ...first, message: 'with ackOutput off: FIELD_VALUE_CHANGED SnapshotStart.cause', explore: { seed: 3, moves: ['without:ackOutput', 'hideReveal'], capabilityOff: true as const } };
    const elsewhere = { ...first, step: 'resubscribe' as const };
    const ordered = orderByRootCause([first, seen, elsewhere]);
    expect(ordered.map((f) => [f.step, f.explore?.seed ?? null, f.causedBy ?? null])).toEqual([
      ['hideReveal', null, null],
      ['hideReveal', 3, 'F1'],
      ['resubscribe', null, null],
    ]);
    expect([...standingIn([first])([seen, elsewhere])]).toEqual([seen]);
  });

  it('credit counted in KiB is one cause: the Ack total that changed explains the stalls and screens after it, in its pairing and in new × new', () => {
    const newNew = 'new client × new host' as const;
    const ackChanged = dyn('FIELD_VALUE_CHANGED', newClient, undefined, 'Ack.bytes', { before: 16, after: 1 });
    const ordered = orderByRootCause([
      dyn('JOURNEY_STALLED', newClient, 'burst', 'byte stream step burst'),
      dyn('JOURNEY_STALLED', newClient, 'burst', 'step burst'),
      dyn('JOURNEY_STALLED', newNew, 'overflowRecovery', 'step overflowRecovery'),
      ackChanged,
      dyn('SCREEN_MISMATCH', newClient, undefined, 'screen'),
    ]);
    expect(ordered.filter((f) => f.causedBy === undefined).map((f) => `${f.ruleId} ${f.subject}`)).toEqual(['FIELD_VALUE_CHANGED Ack.bytes']);
    // A change at a later step does not explain a stall before it; nor does one in the other skew explain a skew's stall.
    const later = orderByRootCause([dyn('JOURNEY_STALLED', newClient, 'burst', 'step burst'), dyn('FIELD_VALUE_CHANGED', newClient, 'hideReveal', 'SnapshotStart.cause'), dyn('SCREEN_MISMATCH', oldClient, undefined, 'screen')]);
    expect(later.filter((f) => f.causedBy === undefined).map((f) => f.ruleId)).toEqual(['JOURNEY_STALLED', 'FIELD_VALUE_CHANGED', 'SCREEN_MISMATCH']);
    // A new × new symptom with no change in the skews before it stands alone.
    expect(orderByRootCause([dyn('JOURNEY_STALLED', newNew, 'burst', 'step burst')]).filter((f) => f.causedBy === undefined)).toHaveLength(1);
  });

  it('what a walk found stands when its root cause stands: a stall under a refusal under a static finding, not one under a refusal nothing explains', () => {
    const walk = rename.slice(2);
    expect([...standingIn([removed, required])(walk)]).toEqual(walk);
    const unexplained = [dyn('FRAME_REFUSED', oldClient, 'input', 'Input'), dyn('JOURNEY_STALLED', oldClient, 'input', 'step input')];
    expect([...standingIn([removed, required])(unexplained)]).toEqual([]);
  });
});

describe("the codec peer refuses what this build's client refuses", () => {
  const metadata = (event: object) => encodeFrame({ opcode: Op.Metadata, streamId: 1, seq: 0, payload: new TextEncoder().encode(JSON.stringify(event)) });

  it('a known event that fails its own schema is refused (the Metadata union alone would let it through)', () => {
    const verdict = classifyFrame(metadata({ type: 'subscribed', streamId: 1, terminal: 'main' }));
    expect(verdict).toMatchObject({ ok: false, code: 'BAD_EVENT', message: expect.stringContaining("'subscribed' event") });
  });

  it('an event of a type this build does not know is data, not a refusal', () => {
    expect(classifyFrame(metadata({ type: 'bell', volume: 3 })).ok).toBe(true);
  });
});
