import { describe, expect, it } from 'vitest';
import { drivableOps, stepsSkippedInRun } from '../../compat/journey/drivable.js';
import { JOURNEY } from '../../compat/journey/script-journey.js';
import type { PeerHello } from '../../compat/peer/control-channel.js';
import { PEER_OPS } from '../../compat/peer/peer-ops.js';
import type { JourneyRecordingSet, RecordedFrame } from '../../compat/recording.js';
import { collapseRepeats } from '../../compat/rules/dynamic/frame-sequence.js';
import { runDynamicRules } from '../../compat/rules/dynamic/run-dynamic.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import { healthySet } from './helpers/recordings.js';

const manifests = () => ({ old: buildManifest('1.0.0'), new: buildManifest('1.1.0') });
const sequenceFindings = (set: JourneyRecordingSet) => runDynamicRules(set, manifests()).filter((f) => f.ruleId === 'FRAME_SEQUENCE_CHANGED');

type Extra = Pick<RecordedFrame, 'direction' | 'step' | 'opcodeName' | 'streamId' | 'payload'> & Partial<Pick<RecordedFrame, 'client' | 'fault'>>;
const OPCODES: Record<string, number> = { Resized: 5, Error: 6, Input: 7, Resize: 8, Metadata: 12, ClaimViewport: 14, WriteUnavailable: 17 };

/** Appends frames to every pairing, or per pairing when `per` says so. */
function withFrames(set: JourneyRecordingSet, frames: (key: keyof JourneyRecordingSet) => Extra[]): JourneyRecordingSet {
  const out = { ...set };
  for (const key of Object.keys(set) as Array<keyof JourneyRecordingSet>) {
    const rec = set[key];
    const extra = frames(key).map((f, i): RecordedFrame => ({ index: rec.frames.length + i, opcode: OPCODES[f.opcodeName] ?? 99, seq: 0, rawHex: '', ...f }));
    out[key] = { ...rec, frames: [...rec.frames, ...extra] };
  }
  return out;
}

const resized = (client: 'primary' | 'second', streamId = 2): Extra => ({ direction: 'hostToClient', step: 'resize', opcodeName: 'Resized', streamId, payload: { cols: 100, rows: 30, reason: 'resize' }, client });
const resize: Extra = { direction: 'clientToHost', step: 'resize', opcodeName: 'Resize', streamId: 2, payload: { cols: 100, rows: 30 }, client: 'primary' };

describe('sequence normalisations for the surface steps', () => {
  it('a block that repeats right after itself collapses, up to four frames long', () => {
    expect(collapseRepeats(['A', 'A', 'A'])).toEqual(['A']);
    expect(collapseRepeats(['A', 'B', 'A', 'B', 'A', 'B', 'C'])).toEqual(['A', 'B', 'C']);
    expect(collapseRepeats(['A', 'B', 'C', 'D', 'A', 'B', 'C', 'D'])).toEqual(['A', 'B', 'C', 'D']);
    expect(collapseRepeats(['A', 'B', 'C', 'D', 'E', 'A', 'B', 'C', 'D', 'E'])).toHaveLength(10);
    expect(collapseRepeats(['A', 'B', 'A', 'C'])).toEqual(['A', 'B', 'A', 'C']);
  });

  it('a refused-input resend loop that fires more often in the skew is not a change; an answer missing from it is', () => {
    const answers = (repeats: number, withWriteUnavailable = true): Extra[] =>
      Array.from({ length: repeats }, (): Extra[] => [
        { direction: 'hostToClient', step: 'inputAfterExit', opcodeName: 'Error', streamId: 1, payload: 'WRITE_UNAVAILABLE: terminal exited', client: 'second' },
        ...(withWriteUnavailable ? [{ direction: 'hostToClient', step: 'inputAfterExit', opcodeName: 'WriteUnavailable', streamId: 1, payload: null, client: 'second' } as Extra] : []),
      ]).flat();
    expect(sequenceFindings(withFrames(healthySet(), (key) => answers(key === 'oldClientNewHost' ? 3 : 1)))).toEqual([]);
    const lost = sequenceFindings(withFrames(healthySet(), (key) => answers(key === 'oldClientNewHost' ? 3 : 1, key !== 'oldClientNewHost')));
    expect(lost.map((f) => [f.direction, f.step])).toEqual([['old client × new host', 'inputAfterExit']]);
  });

  it("frames to two clients are compared per client: their interleaving is not a change, a Resized missing on the second client is", () => {
    const interleaved = withFrames(healthySet(), (key) => (key === 'oldClientNewHost' ? [resize, resized('second', 1), resized('primary')] : [resize, resized('primary'), resized('second', 1)]));
    expect(sequenceFindings(interleaved)).toEqual([]);
    const missing = sequenceFindings(withFrames(healthySet(), (key) => (key === 'oldClientNewHost' ? [resize, resized('primary')] : [resize, resized('primary'), resized('second', 1)])));
    expect(missing.map((f) => [f.direction, f.step])).toEqual([['old client × new host', 'resize']]);
    expect(missing[0]!.message).toContain("second client's connection");
  });

  it('a frame the proxy injected is the harness\'s, never counted as the client\'s', () => {
    const injected: Extra = { direction: 'clientToHost', step: 'inputAfterUnsubscribe', opcodeName: 'Input', streamId: 2, payload: 'echo late\r', client: 'primary', fault: 'injected' };
    expect(sequenceFindings(withFrames(healthySet(), (key) => (key === 'newClientOldHost' ? [injected] : [])))).toEqual([]);
  });
});

describe('which steps a gate run drives', () => {
  const hello = (peerProtocol: number, version: string, peerOps?: PeerHello['hello']['peerOps']): PeerHello['hello'] => ({ peerProtocol, role: 'codec', version, advertised: {}, ...(peerOps ? { peerOps } : {}) });

  it('against a protocol-1 build, steps needing newer ops are skipped in every pairing, naming the build; the rest run', () => {
    const builds = { old: hello(1, '0.1.0'), new: hello(2, '0.2.0', PEER_OPS) };
    const ops = drivableOps(builds.old, builds.new);
    const skipped = stepsSkippedInRun(JOURNEY, ops, builds);
    expect([...skipped.keys()].sort()).toEqual(['activityWhileHidden', 'claimViewport', 'deliveryUnknown', 'killed', 'lateSubscriber', 'limitsClosed', 'limitsReached', 'pasteWithdrawn', 'resize', 'twoStreams', 'writeRefused']);
    expect(skipped.get('limitsReached')).toBe("the old build's host peer (0.1.0, peer protocol 1) cannot 'limits'");
    expect(skipped.get('resize')).toBe("the old build's client peer (0.1.0, peer protocol 1) cannot 'resize'");
    expect(ops.client.has('paste')).toBe(false); // the paste step then types its text as one write
  });

  it('two protocol-2 builds drive every step', () => {
    const builds = { old: hello(2, '0.2.0', PEER_OPS), new: hello(2, '0.3.0', PEER_OPS) };
    expect(stepsSkippedInRun(JOURNEY, drivableOps(builds.old, builds.new), builds).size).toBe(0);
  });
});
