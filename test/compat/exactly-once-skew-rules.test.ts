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
    expect(inputNotExactlyOnce(lost)).toEqual([]);
    const twice = { newClientOldHost: withInput(set.newClientOldHost, `echo hi\r${DARK}${DARK}exit\r`) };
    expect(inputNotExactlyOnce(twice).map((f) => f.direction)).toEqual(['new client × old host']);
  });

  it('with inputAck negotiated, input typed into a dead link must arrive exactly once', () => {
    const set = healthySet();
    const lost = { newNew: withInput(set.newNew, 'echo hi\rexit\r', { ...CAPS, inputAck: 1 }) };
    expect(inputNotExactlyOnce(lost).map((f) => f.direction)).toEqual(['new client × new host']);
    const once = { newNew: withInput(set.newNew, `echo hi\r${DARK}exit\r`, { ...CAPS, inputAck: 1 }) };
    expect(inputNotExactlyOnce(once)).toEqual([]);
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
