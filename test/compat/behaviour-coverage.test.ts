import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPCODES } from '../../src/codec/opcodes.js';
import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import { behaviourFindings, behaviourLine, measureBehaviour } from '../../compat/coverage/behaviour.js';
import { declaredBehaviour, MAY_CROSS } from '../../compat/coverage/behaviour-table.js';
import { behaviourReached } from '../../compat/coverage/behaviour-walk.js';
import { notExercisedReason } from '../../compat/coverage/not-exercised.js';
import type { FrameDirection, PairingRecording, RecordedFrame } from '../../compat/recording.js';

// Hand-made walks: each plants one behaviour, so each classification is seen to
// follow from the frames and not from anything else in a real journey.
type Spec = Partial<RecordedFrame> & { opcodeName: string; direction?: FrameDirection };

const CAPS = { ackOutput: 1, outputPause: 1, writeUnavailable: 1, inputAck: 1, snapshotCause: 1 };
const subscribed = (streamId: number, extra: object = {}): Spec => ({ opcodeName: 'Metadata', direction: 'hostToClient', streamId, payload: { type: 'subscribed', streamId, terminal: 'main', capabilities: CAPS, instanceId: 'i1', ...extra } });
const input = (seq: number, extra: Partial<RecordedFrame> = {}): Spec => ({ opcodeName: 'Input', direction: 'clientToHost', seq, payload: `key ${seq}`, ...extra });
const inputAck = (seq: number, status: string, extra: Partial<RecordedFrame> = {}): Spec => ({ opcodeName: 'InputAck', direction: 'hostToClient', seq, payload: { status }, ...extra });

function walk(specs: Spec[], extra: Partial<PairingRecording> = {}): PairingRecording {
  const frames = specs.map((s, index): RecordedFrame => ({
    index,
    step: 'input',
    opcode: (OPCODES as Record<string, { code: number }>)[s.opcodeName]?.code ?? 99,
    streamId: 1,
    seq: 0,
    payload: null,
    rawHex: '',
    connection: 1,
    direction: s.direction ?? (OPCODES as Record<string, { direction: FrameDirection }>)[s.opcodeName]!.direction,
    ...s,
  }));
  return { client: 'new', host: 'new', clientVersion: '0', hostVersion: '0', steps: [], frames, advertised: { client: CAPS, host: CAPS }, negotiated: CAPS, input: { typed: '', reachedTerminal: '' }, screens: { client: '', host: '' }, peerErrors: [], ...extra };
}

const reached = (specs: Spec[], extra?: Partial<PairingRecording>) => {
  const r = behaviourReached(walk(specs, extra));
  return new Set<string>([...r.pairs, ...r.conditions]);
};

describe('the behaviour table', () => {
  it('declares every opcode in some state, but those no journey can send', () => {
    const declared = new Set(Object.values(MAY_CROSS).flatMap((s) => [...s.client, ...s.host]).map((f) => f.split(':')[0]));
    const missing = Object.values(OPCODES).filter((o) => !declared.has(o.name) && !notExercisedReason(`opcode:${o.name}`));
    expect(missing.map((o) => o.name)).toEqual([]);
  });

  it('names each frame in a state by the side that writes it', () => {
    for (const [state, sides] of Object.entries(MAY_CROSS)) {
      for (const frame of sides.client) expect(OPCODES[frame.split(':')[0] as keyof typeof OPCODES].direction, `${state} × ${frame}`).toBe('clientToHost');
      for (const frame of sides.host) expect(OPCODES[frame.split(':')[0] as keyof typeof OPCODES].direction, `${state} × ${frame}`).toBe('hostToClient');
    }
  });
});

describe('classifying a walk', () => {
  it('counts a frame in the state its stream is in, a transition in the state it leaves', () => {
    const keys = reached([subscribed(1), { opcodeName: 'SetOutputPaused', payload: { paused: true } }, input(0), { opcodeName: 'SetOutputPaused', payload: { paused: false } }, { opcodeName: 'Output', payload: 'x' }, { opcodeName: 'Unsubscribe' }, input(0, { fault: 'injected' })]);
    expect([...keys].filter((k) => k.includes(' × ')).sort()).toEqual(['live × Metadata:subscribed', 'live × Output', 'live × SetOutputPaused', 'live × Unsubscribe', 'paused × Input', 'paused × SetOutputPaused', 'unsubscribed × Input']);
  });

  it('pauses only a stream that negotiated outputPause: elsewhere the host refuses the frame', () => {
    const keys = reached([subscribed(910, { capabilities: undefined }), { opcodeName: 'SetOutputPaused', streamId: 910, payload: { paused: true } }, input(0, { streamId: 910 })]);
    expect(keys.has('live × Input')).toBe(true);
    expect(keys.has('paused × Input')).toBe(false);
  });

  it('counts what goes into a link that never carries anything again as silent, and a lone lost frame as lost', () => {
    const silent = reached([subscribed(1), input(1), inputAck(1, 'applied'), input(2, { fault: 'dropped' }), { ...subscribed(1), connection: 2 }]);
    expect(silent.has('silent × Input')).toBe(true);
    expect(silent.has('link.silentThenDead')).toBe(true);
    const lost = reached([subscribed(1), input(1), input(2, { fault: 'dropped' }), input(3), inputAck(1, 'resend')]);
    expect(lost.has('silent × Input')).toBe(false);
    expect(lost.has('input.gapped')).toBe(true);
    expect(lost.has('input.refused')).toBe(false);
  });

  it('tells a stall resend (an InputAck lost) from a resend the host asked for', () => {
    const stalled = reached([subscribed(1), input(1), inputAck(1, 'applied', { fault: 'dropped' }), input(1), inputAck(1, 'applied')]);
    expect(stalled.has('input.stalled')).toBe(true);
    const asked = reached([subscribed(1), input(1), input(2), inputAck(0, 'resend'), input(1), input(2)]);
    expect(asked.has('input.stalled')).toBe(false);
    expect(asked.has('input.refused')).toBe(true);
  });

  it('sees a duplicate, an unknown delivery, unsequenced input and a resend on the next connection', () => {
    const keys = reached([subscribed(1), input(0), input(1), inputAck(1, 'applied'), input(1, { fault: 'injected' }), input(2), inputAck(2, 'deliveryUnknown'), input(3, { fault: 'dropped' }), { ...subscribed(1), connection: 2 }, input(3, { connection: 2 })]);
    for (const c of ['input.unsequenced', 'input.duplicated', 'input.unknown', 'input.acrossReconnect', 'link.reconnectSameInstance']) expect(keys.has(c), c).toBe(true);
    expect(keys.has('link.reconnectNewInstance')).toBe(false);
  });

  it('tells a new instance of the terminal from the same one, and a stream paused across a reconnect', () => {
    const keys = reached([subscribed(1), { opcodeName: 'SetOutputPaused', payload: { paused: true } }, { ...subscribed(1, { instanceId: 'i2' }), connection: 2 }]);
    expect(keys.has('link.reconnectNewInstance')).toBe(true);
    expect(keys.has('link.reconnectSameInstance')).toBe(false);
    expect(keys.has('link.pausedAcrossReconnect')).toBe(true);
  });

  it('tells a terminal found again from one that expired while detached and one whose program exited', () => {
    const leave: Spec = { opcodeName: 'Unsubscribe' };
    expect(reached([subscribed(1), leave, subscribed(2)]).has('lifetime.foundAgain')).toBe(true);
    const expired = reached([subscribed(1), leave, subscribed(2, { instanceId: 'i2' })]);
    expect(expired.has('lifetime.expired')).toBe(true);
    expect(expired.has('lifetime.foundAgain')).toBe(false);
    const exited = reached([subscribed(1), { opcodeName: 'Metadata', payload: { type: 'exit', exitCode: 0 } }, leave, subscribed(2, { instanceId: 'i2' })]);
    expect(exited.has('lifetime.newAfterExit')).toBe(true);
    expect(exited.has('lifetime.expired')).toBe(false);
  });

  it('sees a snapshot chunk boundary inside an escape sequence', () => {
    const snapshot = (first: string): Spec[] => [{ opcodeName: 'SnapshotStart', payload: {} }, { opcodeName: 'SnapshotChunk', payload: first }, { opcodeName: 'SnapshotChunk', payload: '31mred' }, { opcodeName: 'SnapshotEnd' }];
    expect(reached([subscribed(1), ...snapshot('plain \x1b[')]).has('snapshot.chunkSplitsEscape')).toBe(true);
    expect(reached([subscribed(1), ...snapshot('plain \x1b[0m')]).has('snapshot.chunkSplitsEscape')).toBe(false);
  });

  it('sees Resizes inside the merge window, and snapshot requests faster than their answers', () => {
    const resize = (cols: number): Spec => ({ opcodeName: 'Resize', payload: { cols, rows: 24 } });
    const resized: Spec = { opcodeName: 'Resized', payload: { cols: 92, rows: 24 } };
    expect(reached([subscribed(1), resize(90), resized, resize(91), resized]).has('resize.merged')).toBe(false);
    expect(reached([subscribed(1), resize(90), resize(91), resized]).has('resize.merged')).toBe(true);
    const request = (requestId: string): Spec => ({ opcodeName: 'SnapshotRequest', payload: { requestId } });
    const answer = (requestId: string): Spec[] => [{ opcodeName: 'SnapshotStart', payload: { requestId } }, { opcodeName: 'SnapshotChunk', payload: 'a' }, { opcodeName: 'SnapshotChunk', payload: 'b' }, { opcodeName: 'SnapshotEnd' }];
    const alone = reached([subscribed(1), request('a'), ...answer('a'), request('b'), ...answer('b')]);
    expect(alone.has('snapshot.requestsMerged')).toBe(false);
    expect(alone.has('snapshot.severalChunks')).toBe(true);
    expect(reached([subscribed(1), request('a'), request('b'), ...answer('a'), ...answer('b')]).has('snapshot.requestsMerged')).toBe(true);
  });
});

describe('behaviour coverage of a run', () => {
  const manifest = JSON.parse(execFileSync(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'termwire.js'), 'manifest'], { encoding: 'utf8' })) as WireManifest;
  const manifests = { old: manifest, new: manifest };
  const everyPairing = (rec: PairingRecording) => ({ oldClientNewHost: [rec], newClientOldHost: [rec], newNew: [rec] });

  it('makes each pair or condition both builds support that no walk reached a finding, per direction', () => {
    const report = measureBehaviour(manifests, everyPairing(walk([subscribed(1), input(1), inputAck(1, 'applied')])));
    const findings = behaviourFindings(report);
    expect(findings.filter((f) => f.subject === 'behaviour input.stalled').map((f) => f.direction)).toEqual(['old client × new host', 'new client × old host', 'new client × new host']);
    expect(findings.some((f) => f.subject === 'behaviour live × Input')).toBe(false);
    expect(findings.every((f) => f.ruleId === 'BEHAVIOUR_NOT_REACHED')).toBe(true);
    const d = report.directions[0]!;
    expect(d.pairs.applicable + d.conditions.applicable).toBe(declaredBehaviour().filter((i) => !i.senderPolicy).length);
    // How a sender cuts its data is its choice: reported, never a finding.
    expect(d.senderPolicy).toContain('snapshot.oneChunk (not reached)');
    expect(findings.some((f) => f.subject === 'behaviour snapshot.oneChunk')).toBe(false);
  });

  it('unions every walk of a direction', () => {
    const one = walk([subscribed(1), input(1), inputAck(1, 'applied')]);
    const other = walk([subscribed(1), input(1), inputAck(1, 'applied', { fault: 'dropped' }), input(1)]);
    const report = measureBehaviour(manifests, { oldClientNewHost: [one, other], newClientOldHost: [one], newNew: [one] });
    const stalledIn = behaviourFindings(report).filter((f) => f.subject === 'behaviour input.stalled').map((f) => f.direction);
    expect(stalledIn).toEqual(['new client × old host', 'new client × new host']);
  });

  it('does not ask a pairing for what needs a capability one side does not advertise', () => {
    const noInputAck = { ...CAPS, inputAck: 0 };
    const rec = walk([subscribed(1)], { advertised: { client: noInputAck, host: CAPS } });
    const report = measureBehaviour(manifests, everyPairing(rec));
    expect(report.directions[0]!.notApplicable.find((n) => n.key === 'input.stalled')?.reason).toMatch(/inputAck/);
    expect(behaviourFindings(report).some((f) => f.subject === 'behaviour input.stalled')).toBe(false);
  });

  it('judges nothing when a step could not be walked, and says why', () => {
    const report = measureBehaviour(manifests, everyPairing(walk([subscribed(1)])), {}, { notJudged: "a build's peers cannot drive resize" });
    expect(behaviourFindings(report)).toEqual([]);
    expect(report.notJudged).toBe("a build's peers cannot drive resize");
  });

  it('does not judge what only a walk left out of the run reaches, and judges the rest', () => {
    const report = measureBehaviour(manifests, everyPairing(walk([subscribed(1)])), {}, { walksLeftOut: { restart: '--passes left out restart' } });
    const subjects = behaviourFindings(report).map((f) => f.subject);
    expect(subjects).not.toContain('behaviour link.reconnectNewInstance');
    expect(subjects).toContain('behaviour lifetime.expired');
    expect(report.directions[0]!.notWalked).toContain('link.reconnectNewInstance');
  });

  it('reports what explore alone reached, without judging by it', () => {
    const script = walk([subscribed(1), input(1), inputAck(1, 'applied')]);
    const explored = walk([subscribed(1), input(1), inputAck(1, 'applied', { fault: 'dropped' }), input(1)]);
    const report = measureBehaviour(manifests, everyPairing(script), { newNew: [explored] });
    const newNew = report.directions.find((d) => d.direction === 'new client × new host')!;
    expect(newNew.onlyExplored).toContain('input.stalled');
    expect(behaviourLine(newNew), JSON.stringify(newNew.onlyExplored)).toMatch(/; explore reached \d+\/\d+, 2 of them no other walk did$/);
    expect(behaviourLine(report.directions[0]!)).not.toMatch(/explore/);
    expect(behaviourFindings(report).some((f) => f.subject === 'behaviour input.stalled' && f.direction === 'new client × new host')).toBe(true);
  });
});
