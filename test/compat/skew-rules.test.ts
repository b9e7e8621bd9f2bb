import { describe, expect, it } from 'vitest';
import { inputNotExactlyOnce } from '../../compat/rules/dynamic/journey-outcome-rules.js';
import { runDynamicRules } from '../../compat/rules/dynamic/run-dynamic.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { RecordedFrame } from '../../compat/recording.js';
import { CAPS, healthySet } from './helpers/recordings.js';

const manifests = () => ({ old: buildManifest('1.0.0'), new: buildManifest('1.1.0') });
const DARK = 'echo dark\r';
const withInput = <T extends { input: object }>(rec: T, reachedTerminal: string, negotiated?: object) => ({
  ...rec,
  input: { typed: `echo hi\r${DARK}exit\r`, reachedTerminal, atMostOnce: DARK },
  ...(negotiated ? { negotiated } : {}),
});

describe('exactly-once input across versions: what the gate expects', () => {
  it('without inputAck, input typed into a dead link may be lost, never duplicated', () => {
    const set = healthySet();
    const lost = { newClientOldHost: withInput(set.newClientOldHost, 'echo hi\rexit\r') };
    expect(inputNotExactlyOnce.run(lost)).toEqual([]);
    const twice = { newClientOldHost: withInput(set.newClientOldHost, `echo hi\r${DARK}${DARK}exit\r`) };
    expect(inputNotExactlyOnce.run(twice).map((f) => f.direction)).toEqual(['new client × old host']);
  });

  it('with several drops, each dark segment may be lost on its own, never doubled or reordered (found by explore seed 777)', () => {
    const set = healthySet();
    const segments = [{ text: 'a\r' }, { text: 'd1\r', atMostOnce: true as const }, { text: 'b\r' }, { text: 'd2\r', atMostOnce: true as const }];
    const reaching = (reachedTerminal: string) => ({ newClientOldHost: { ...set.newClientOldHost, input: { typed: 'a\rd1\rb\rd2\r', reachedTerminal, atMostOnce: 'd1\rd2\r', segments } } });
    for (const ok of ['a\rd1\rb\rd2\r', 'a\rb\rd2\r', 'a\rd1\rb\r', 'a\rb\r']) expect(inputNotExactlyOnce.run(reaching(ok)), ok).toEqual([]);
    for (const bad of ['a\rd1\rd1\rb\r', 'a\rd2\rb\rd1\r', 'a\rd1\rd2\r', 'a\rb\rd2\rd2\r']) expect(inputNotExactlyOnce.run(reaching(bad)).length, bad).toBe(1);
  });

  it('with inputAck negotiated, input typed into a dead link must arrive exactly once', () => {
    const set = healthySet();
    const lost = { newNew: withInput(set.newNew, 'echo hi\rexit\r', { ...CAPS, inputAck: 1 }) };
    expect(inputNotExactlyOnce.run(lost).map((f) => f.direction)).toEqual(['new client × new host']);
    const once = { newNew: withInput(set.newNew, `echo hi\r${DARK}exit\r`, { ...CAPS, inputAck: 1 }) };
    expect(inputNotExactlyOnce.run(once)).toEqual([]);
  });

  it("a new client resending journaled input where inputAck was negotiated is not a sequence change against an old host", () => {
    const set = healthySet();
    // new × new negotiated inputAck: the journal resends on the new stream; new client × old host did not.
    const resubscribe = set.newNew.frames.find((f) => f.step === 'resubscribe' && f.opcodeName === 'Subscribe')!;
    const resend: RecordedFrame = { ...resubscribe, index: 999, opcode: 7, opcodeName: 'Input', streamId: 2, payload: DARK };
    set.newNew = { ...set.newNew, negotiated: { ...CAPS, inputAck: 1 }, frames: [...set.newNew.frames, resend] };
    expect(runDynamicRules(set, manifests()).filter((f) => f.ruleId === 'FRAME_SEQUENCE_CHANGED')).toEqual([]);
  });

  it('the same difference with the same capabilities negotiated is still a sequence change', () => {
    const set = healthySet();
    const resubscribe = set.newNew.frames.find((f) => f.step === 'resubscribe' && f.opcodeName === 'Subscribe')!;
    const resend: RecordedFrame = { ...resubscribe, index: 999, opcode: 7, opcodeName: 'Input', streamId: 2, payload: DARK };
    set.newNew = { ...set.newNew, frames: [...set.newNew.frames, resend] };
    expect(runDynamicRules(set, manifests()).filter((f) => f.ruleId === 'FRAME_SEQUENCE_CHANGED').map((f) => f.direction)).toEqual(['new client × old host']);
  });
});

describe('frame sequences name control events', () => {
  it('a new host that adds a Metadata event after subscribed is a sequence change toward the old client', () => {
    const set = healthySet();
    const subscribed = set.oldClientNewHost.frames.find((f) => f.opcodeName === 'Metadata')!;
    const extra: RecordedFrame = { ...subscribed, index: 998, payload: { type: 'hostInfo', name: 'x' } };
    const frames = [...set.oldClientNewHost.frames];
    frames.splice(frames.indexOf(subscribed) + 1, 0, extra);
    set.oldClientNewHost = { ...set.oldClientNewHost, frames };
    const found = runDynamicRules(set, manifests()).filter((f) => f.ruleId === 'FRAME_SEQUENCE_CHANGED');
    expect(found.map((f) => f.direction)).toContain('old client × new host');
    expect(found[0]!.message).toContain('Metadata[type=hostInfo]');
  });
});

describe('GATED_FRAME_NOT_NEGOTIATED', () => {
  it('flags a gated opcode sent where its capability was not negotiated, even when the receiver decodes it', () => {
    const set = healthySet();
    set.newClientOldHost = { ...set.newClientOldHost, negotiated: { ackOutput: 1, writeUnavailable: 1 } };
    const found = runDynamicRules(set, manifests()).filter((f) => f.ruleId === 'GATED_FRAME_NOT_NEGOTIATED');
    expect(found.map((f) => [f.direction, f.subject, f.step])).toEqual([['new client × old host', 'SetOutputPaused', 'hideReveal']]);
  });

  it('stays quiet where the capability was negotiated', () => {
    expect(runDynamicRules(healthySet(), manifests()).filter((f) => f.ruleId === 'GATED_FRAME_NOT_NEGOTIATED')).toEqual([]);
  });
});

describe('replies to timing-dependent frames', () => {
  it("an Error answering a late Ack is not a sequence change, but any other new Error is", () => {
    const lateAck = healthySet();
    const unsubscribe = lateAck.oldClientNewHost.frames.find((f) => f.opcodeName === 'Unsubscribe')!;
    const errorFrame = (text: string): RecordedFrame => ({ ...unsubscribe, index: 997, direction: 'hostToClient', opcode: 6, opcodeName: 'Error', payload: text });
    lateAck.oldClientNewHost = { ...lateAck.oldClientNewHost, frames: [...lateAck.oldClientNewHost.frames, errorFrame('NOT_SUBSCRIBED: Ack on stream 2, which was unsubscribed')] };
    expect(runDynamicRules(lateAck, manifests()).filter((f) => f.ruleId === 'FRAME_SEQUENCE_CHANGED')).toEqual([]);

    const other = healthySet();
    other.oldClientNewHost = { ...other.oldClientNewHost, frames: [...other.oldClientNewHost.frames, errorFrame('NOT_SUBSCRIBED: Input on stream 2, which was unsubscribed')] };
    expect(runDynamicRules(other, manifests()).filter((f) => f.ruleId === 'FRAME_SEQUENCE_CHANGED').map((f) => f.direction)).toEqual(['old client × new host']);
  });
});
