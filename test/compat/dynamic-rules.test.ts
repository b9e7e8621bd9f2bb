import { describe, expect, it } from 'vitest';
import { activeRules } from '../../compat/rules/catalog.js';
import { DYNAMIC_PASS, RULES_OUTSIDE_RECORDINGS, runDynamicRules } from '../../compat/rules/dynamic/run-dynamic.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import type { JourneyRecordingSet, PairingKey, ProbeEnd, RecordedFrame, StepName } from '../../compat/recording.js';
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

  it('FRAME_REFUSED ignores a frame the proxy injected to provoke an Error: no build wrote it', () => {
    const set = editFrames(healthySet(), 'newClientOldHost', (f) =>
      f.opcodeName === 'SnapshotRequest' ? { ...f, fault: 'injected', refusedBy: { code: 'BAD_JSON', message: 'unexpected end' } } : f,
    );
    expect(summary(set).filter((s) => s.startsWith('FRAME_REFUSED'))).toEqual([]);
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

  /** The reveal's request and the snapshot answering it, gone from one pairing: a client that no longer asks, and a host not asked. */
  const withoutRevealRequest = (set: JourneyRecordingSet, key: PairingKey) =>
    editFrames(set, key, (f) => (f.step === 'hideReveal' && (f.opcodeName === 'SnapshotRequest' || f.opcodeName.startsWith('Snapshot')) ? null : f));

  it("a new client that stops asking for a snapshot is judged by what it shows, not by the request, and a host's answers against a reference where the same request was made", () => {
    // The new client no longer asks, wherever it runs: the old host needs nothing from the request. In new × new the new host answers
    // nothing, while in old client × new host it answers the old client's request: not a change of the new host's.
    const set = withoutRevealRequest(withoutRevealRequest(healthySet(), 'newNew'), 'newClientOldHost');
    expect(summary(set)).toEqual([]);
    // Against old × old, where the old client asked alike, the new host's answer is still judged.
    const unanswered = editFrames(set, 'oldClientNewHost', (f) => (f.step === 'hideReveal' && f.opcodeName === 'SnapshotEnd' ? null : f));
    expect(summary(unanswered)).toContain('FRAME_SEQUENCE_CHANGED | old client × new host | hideReveal | - | new host frames');
  });

  it('a new client that asks far more often than the old one is still counted', () => {
    // The new client's code asks forty times wherever it runs, so only old × old tells.
    const set = healthySet();
    for (const key of ['newNew', 'newClientOldHost'] as const) {
      const frames = set[key].frames;
      const at = frames.findIndex((f) => f.opcodeName === 'SnapshotRequest');
      frames.splice(at + 1, 0, ...Array.from({ length: 40 }, () => ({ ...frames[at]! })));
    }
    expect(summary(set)).toContain('FRAME_COUNT_CHANGED | new client × old host | hideReveal | - | new client frames');
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

  it('GATED_FRAME_NOT_NEGOTIATED judges a frame by its own stream\'s echo too: a bare stream beside a negotiated one', () => {
    const bare = (set: JourneyRecordingSet, fault?: 'injected') => {
      const frames = set.oldClientNewHost.frames;
      const last = frames.at(-1)!;
      frames.push(
        { ...last, index: 900, step: 'limitsReached', direction: 'hostToClient', opcode: 12, opcodeName: 'Metadata', streamId: 9, payload: { type: 'subscribed', streamId: 9, terminal: 'spare', cols: 80, rows: 24, seq: 0, truncated: false, capabilities: {} } },
        { ...last, index: 901, step: 'limitsReached', direction: 'hostToClient', opcode: 17, opcodeName: 'WriteUnavailable', streamId: 9, payload: null, ...(fault ? { fault } : {}) },
      );
      return set;
    };
    expect(summary(bare(healthySet())).filter((s) => s.startsWith('GATED'))).toEqual(['GATED_FRAME_NOT_NEGOTIATED | old client × new host | limitsReached | - | WriteUnavailable']);
    expect(summary(bare(healthySet(), 'injected')).filter((s) => s.startsWith('GATED'))).toEqual([]);
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

  it('LIVENESS_ANSWER_CHANGED: the new host answers pings with another payload, or not at all; the old side and echoes are not judged', () => {
    const set = healthySet();
    const exchange = (answerer: 'client' | 'host', outcome: 'echoed' | 'otherPayload' | 'unanswered') =>
      ({ step: 'input', connection: 1, client: 'primary', answerer, outcome, pingHex: 'aa', ...(outcome === 'otherPayload' ? { pongHex: 'bb' } : {}) }) as const;
    set.oldClientNewHost.liveness = [exchange('host', 'echoed'), exchange('host', 'otherPayload'), exchange('host', 'otherPayload'), exchange('client', 'unanswered')];
    set.newClientOldHost.liveness = [exchange('host', 'unanswered'), exchange('client', 'unanswered')];
    set.oldOld.liveness = [exchange('host', 'otherPayload')];
    expect(run(set).map((f) => [f.ruleId, f.direction, f.evidence.outcome, f.evidence.count, f.evidence.of])).toEqual([
      ['LIVENESS_ANSWER_CHANGED', 'old client × new host', 'otherPayload', 2, 3],
      ['LIVENESS_ANSWER_CHANGED', 'new client × old host', 'unanswered', 1, 1],
    ]);
  });

  it('HOST_CLOSE_CHANGED: the new host closes a flooding connection with another reason code, or keeps it; a reworded message, another close code, a lost close frame and an old host without the limit stay green', () => {
    const closed = (code: number, reason: string) => ({ step: 'limitsClosed', connection: 9, outcome: 'closed', code, reason, answeredFrames: 100 }) as const;
    const keptOpen = { step: 'limitsClosed', connection: 9, outcome: 'stayedOpen', answeredFrames: 1000 } as const;
    const judged = (old: ProbeEnd, skew: ProbeEnd | undefined) => {
      const set = healthySet();
      set.oldOld.probeEnds = [old];
      set.oldClientNewHost.probeEnds = skew ? [skew] : [];
      return run(set).filter((f) => f.ruleId === 'HOST_CLOSE_CHANGED').map((f) => [f.direction, f.subject, f.evidence.before, f.evidence.after]);
    };
    const rateClose = closed(1008, 'ERROR_RATE: more than 100 Error replies in a second');
    expect(judged(rateClose, closed(1008, 'ERROR_RATE: over 100 replies a second'))).toEqual([]);
    expect(judged(closed(1001, rateClose.reason), rateClose)).toEqual([]);
    // The host dropped the socket before the probe read its close frame (a busy machine): nothing either way.
    expect(judged(rateClose, closed(1006, ''))).toEqual([]);
    expect(judged(rateClose, closed(1008, 'TOO_MANY_ERRORS: more than 100'))).toEqual([['old client × new host', 'close:ERROR_RATE', 'closed it with ERROR_RATE', 'closed it with TOO_MANY_ERRORS']]);
    expect(judged(rateClose, closed(1008, 'more than 100'))).toEqual([['old client × new host', 'close:ERROR_RATE', 'closed it with ERROR_RATE', "closed it with the reason 'more than 100', which names no code"]]);
    expect(judged(rateClose, closed(1008, ''))).toEqual([['old client × new host', 'close:ERROR_RATE', 'closed it with ERROR_RATE', 'closed it with no reason']]);
    expect(judged(rateClose, keptOpen)).toEqual([['old client × new host', 'close:ERROR_RATE', 'closed it with ERROR_RATE', 'kept the connection open']]);
    expect(judged(rateClose, undefined)).toEqual([['old client × new host', 'close:ERROR_RATE', 'closed it with ERROR_RATE', 'did not end it']]);
    expect(judged(keptOpen, rateClose)).toEqual([]);
    expect(judged(closed(1008, 'no code here'), keptOpen)).toEqual([]);
  });

  it('HOST_CLOSE_CHANGED: a wrong token answered with a status no client reads as one, or admitted; 403 for 401, and a fix of an old answer, stay green', () => {
    const answer = (outcome: 'refused' | 'admitted', status?: number) => ({ step: 'wrongToken', connection: 12, outcome, ...(status ? { status } : {}), answeredFrames: 0 }) as const;
    const judged = (old: ProbeEnd, skew: ProbeEnd) => {
      const set = healthySet();
      set.oldOld.probeEnds = [old];
      set.oldClientNewHost.probeEnds = [skew];
      return run(set).filter((f) => f.ruleId === 'HOST_CLOSE_CHANGED').map((f) => [f.subject, f.evidence.after]);
    };
    expect(judged(answer('refused', 401), answer('refused', 403))).toEqual([]);
    expect(judged(answer('refused', 400), answer('refused', 401))).toEqual([]);
    expect(judged(answer('admitted'), answer('refused', 401))).toEqual([]);
    expect(judged(answer('refused', 401), answer('refused', 400))).toEqual([['upgrade:wrong token', 'refused the upgrade with HTTP 400']]);
    expect(judged(answer('refused', 401), answer('refused'))).toEqual([['upgrade:wrong token', 'refused the upgrade without an HTTP answer']]);
    expect(judged(answer('refused', 401), answer('admitted'))).toEqual([['upgrade:wrong token', 'admitted a wrong token']]);
  });

  it('HOST_CLOSE_CHANGED: the third wrong token in a row answered in under half the first two failures\' delays (100 + 200 ms), where the old host waited them; an old host without the delays, and a slow answer on a busy machine, stay green', () => {
    const refused = (connection: number) => ({ step: 'wrongToken', connection, outcome: 'refused', status: 401, answeredFrames: 0 }) as const;
    const third = (ms: number) => ({ ...refused(14), sinceFirstAttemptMs: ms, failuresBefore: 2 });
    const judged = (oldMs: number, newMs: number) => {
      const set = healthySet();
      set.oldOld.probeEnds = [refused(12), refused(13), third(oldMs)];
      set.oldClientNewHost.probeEnds = [refused(12), refused(13), third(newMs)];
      return run(set).filter((f) => f.ruleId === 'HOST_CLOSE_CHANGED').map((f) => [f.direction, f.subject, f.evidence.before, f.evidence.after]);
    };
    expect(judged(312, 9)).toEqual([['old client × new host', 'upgrade:wrong token again', '312 ms', '9 ms']]);
    expect(judged(312, 149)).toEqual([['old client × new host', 'upgrade:wrong token again', '312 ms', '149 ms']]);
    expect(judged(312, 150)).toEqual([]);
    expect(judged(312, 900)).toEqual([]);
    // v0.1.0 had no throttle: its own answers came within round trips, so the new host's are not judged against them.
    expect(judged(20, 9)).toEqual([]);
    expect(judged(299, 9)).toEqual([]);
  });

  it('FRAME_COUNT_CHANGED: a frame repeated unchanged far more often than its reference, per second of the step; a few more, distinct frames and snapshot chunks stay green', () => {
    const repeated = (times: number) => {
      const set = healthySet();
      const frames = set.newClientOldHost.frames;
      const at = frames.findIndex((f) => f.opcodeName === 'SnapshotRequest' && f.direction === 'clientToHost');
      frames.splice(at + 1, 0, ...Array.from({ length: times }, () => ({ ...frames[at]! })));
      return set;
    };
    expect(summary(repeated(3)).filter((s) => s.startsWith('FRAME_COUNT'))).toEqual([]);
    const [f] = run(repeated(40)).filter((x) => x.ruleId === 'FRAME_COUNT_CHANGED');
    expect(f).toMatchObject({ ruleId: 'FRAME_COUNT_CHANGED', direction: 'new client × old host', subject: 'new client frames', evidence: { before: 1, after: 41 } });
    // Forty distinct frames (a payload split finer) are not resends, and a snapshot's chunks are the host's own split.
    const distinct = repeated(40);
    let k = 0;
    distinct.newClientOldHost.frames = distinct.newClientOldHost.frames.map((x) => (x.opcodeName === 'SnapshotRequest' && x.direction === 'clientToHost' ? { ...x, rawHex: `${'0'.repeat(32)}${(k++).toString(16).padStart(4, '0')}` } : x));
    expect(run(distinct).filter((x) => x.ruleId === 'FRAME_COUNT_CHANGED')).toEqual([]);
    const chunks = healthySet();
    const at = chunks.oldClientNewHost.frames.findIndex((x) => x.opcodeName === 'SnapshotChunk');
    chunks.oldClientNewHost.frames.splice(at + 1, 0, ...Array.from({ length: 40 }, () => ({ ...chunks.oldClientNewHost.frames[at]! })));
    expect(run(chunks).filter((x) => x.ruleId === 'FRAME_COUNT_CHANGED')).toEqual([]);
    // The same count spread over a step forty times longer than the reference's is the same rate: timing, not a change.
    const slow = repeated(40);
    slow.newClientOldHost.steps = slow.newClientOldHost.steps.map((s) => (s.name === f!.step ? { ...s, durationMs: 40 * 200 } : s));
    expect(run(slow).filter((x) => x.ruleId === 'FRAME_COUNT_CHANGED')).toEqual([]);
  });

  it('FIELD_VALUE_CHANGED: compared per occurrence; reordered keys stay green', () => {
    const swapped = editFrames(healthySet(), 'oldClientNewHost', (f) =>
      f.opcodeName === 'SnapshotStart' && f.occurrence === 'reveal' ? { ...f, payload: withPayload(f.payload, { cols: 24, rows: 80 }) } : f,
    );
    expect(summary(swapped)).toEqual([
      'FIELD_VALUE_CHANGED | old client × new host | hideReveal | reveal | SnapshotStart.cols',
      'FIELD_VALUE_CHANGED | old client × new host | hideReveal | reveal | SnapshotStart.rows',
    ]);
    const reordered = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'SnapshotStart' ? { ...f, payload: Object.fromEntries(Object.entries(f.payload as object).reverse()) } : f));
    expect(summary(reordered)).toEqual([]);
    const client = editFrames(healthySet(), 'newClientOldHost', (f) => (f.opcodeName === 'SetOutputPaused' && f.step === 'hideReveal' ? { ...f, payload: { paused: !(f.payload as { paused: boolean }).paused } } : f));
    expect(summary(client)).toContain('FIELD_VALUE_CHANGED | new client × old host | hideReveal | - | SetOutputPaused.paused');
  });

  it("FIELD_VALUE_CHANGED: a reveal's resume and request snapshots at one seq compare by cause, in whichever order they went out", () => {
    // A reveal answered twice at one seq: the resume of SetOutputPaused and the SnapshotRequest, as v0.2.0 sends them either way round.
    const twice = (key: PairingKey, order: 'resumeFirst' | 'requestFirst', resumeSource = 'recovery') => (set: JourneyRecordingSet) => {
      const frames = set[key].frames;
      const start = frames.findIndex((f) => f.opcodeName === 'SnapshotStart' && f.occurrence === 'reveal');
      const request = frames.slice(start, start + 3);
      const resume = request.map((f) => (f.opcodeName === 'SnapshotStart' ? { ...f, payload: withPayload(without(f.payload, 'requestId'), { source: resumeSource }) } : f));
      const both = order === 'resumeFirst' ? [...resume, ...request] : [...request, ...resume];
      return { ...set, [key]: { ...set[key], frames: [...frames.slice(0, start), ...both, ...frames.slice(start + 3)] } };
    };
    const reference = twice('oldOld', 'resumeFirst')(healthySet());
    expect(summary(twice('oldClientNewHost', 'requestFirst')(reference))).toEqual([]);
    expect(summary(twice('oldClientNewHost', 'resumeFirst')(reference))).toEqual([]);
    // A cause that changed is still found, whichever order it went out in.
    expect(summary(twice('oldClientNewHost', 'requestFirst', 'overflow')(reference))).toContain('FIELD_VALUE_CHANGED | old client × new host | hideReveal | reveal | SnapshotStart.source');
  });

  it("an overflow snapshot taken at another seq is the host's flow policy: its seq and text are not compared, its cause is", () => {
    const isSkew = (key: PairingKey) => key === 'oldClientNewHost' || key === 'newNew';
    // Each pairing's host drops the queue of a client that returned no credit and repaints it, at `seq`, showing `text`.
    const overflowAt = (seq: (key: PairingKey) => number, text: (key: PairingKey) => string, cause: (key: PairingKey) => string = () => 'overflow') => {
      const set = healthySet();
      for (const key of Object.keys(set) as PairingKey[]) {
        const frames = set[key].frames;
        const at = (i: number, opcode: number, opcodeName: string, payload: unknown): RecordedFrame => ({ index: frames.length + i, direction: 'hostToClient', step: 'overflowRecovery', opcode, opcodeName, streamId: 1, seq: seq(key), payload, rawHex: '' });
        frames.push(
          at(0, 2, 'SnapshotStart', { kind: 'scrollback', cols: 80, rows: 24, seq: seq(key), cause: cause(key), truncated: false }),
          at(1, 3, 'SnapshotChunk', text(key)),
          at(2, 4, 'SnapshotEnd', undefined),
        );
      }
      return set;
    };
    const elsewhere = (key: PairingKey) => (isSkew(key) ? 8_600_470 : 9_649_035);
    const otherPage = (key: PairingKey) => (isSkew(key) ? 'overflow 0 page 1160' : 'overflow 0 page 1390');
    // A host that queues less (a smaller window, a smaller queue) overflows earlier: nothing an old client relies on.
    expect(summary(overflowAt(elsewhere, otherPage))).toEqual([]);
    // Its cause is still compared, and then so is where it was taken.
    expect(summary(overflowAt(elsewhere, () => 'same', (key) => (isSkew(key) ? 'resume' : 'overflow')))).toEqual(
      expect.arrayContaining(['FIELD_VALUE_CHANGED | old client × new host | overflowRecovery | - | SnapshotStart.cause', 'FIELD_VALUE_CHANGED | old client × new host | overflowRecovery | - | SnapshotStart.seq']),
    );
    // Taken at the reference's seq, its text is the screen at that seq, compared as any snapshot's.
    expect(summary(overflowAt(() => 9_649_035, otherPage))).toEqual(['SNAPSHOT_CONTENT_CHANGED | old client × new host | - | - | SnapshotChunk']);
  });

  it("Resized a burst of requests brings is the host's merge policy: only the last of the burst is compared", () => {
    const reference: Record<PairingKey, boolean> = { oldOld: false, oldClientNewHost: true, newClientOldHost: false, newNew: true };
    // Three Resizes in one write; a host that answers each (v0.1.0) sends three Resized, one that merges them (minResizeIntervalMs) two.
    const burst = (sizes: (merges: boolean) => ReadonlyArray<readonly [number, number]>, askBetween = false) => {
      const set = healthySet();
      for (const key of Object.keys(set) as PairingKey[]) {
        const frames = set[key].frames;
        const frame = (direction: RecordedFrame['direction'], opcode: number, opcodeName: string, payload: unknown): RecordedFrame => ({ index: frames.length, direction, step: 'resizesMerged', opcode, opcodeName, streamId: 1, seq: 0, payload, rawHex: '' });
        for (const [cols, rows] of [[90, 30], [91, 31], [92, 32]]) frames.push(frame('clientToHost', 8, 'Resize', { cols, rows }));
        for (const [cols, rows] of sizes(reference[key])) {
          if (askBetween && frames.at(-1)!.opcodeName === 'Resized') frames.push(frame('clientToHost', 8, 'Resize', { cols, rows }));
          frames.push(frame('hostToClient', 5, 'Resized', { cols, rows, reason: 'resize' }));
        }
      }
      return set;
    };
    const merged = (merges: boolean) => (merges ? [[90, 30], [92, 32]] as const : [[90, 30], [91, 31], [92, 32]] as const);
    expect(summary(burst(merged))).toEqual([]);
    // The size a burst ends at is still compared.
    const endsShort = (merges: boolean) => (merges ? [[90, 30], [91, 31]] as const : [[90, 30], [91, 31], [92, 32]] as const);
    expect(summary(burst(endsShort))).toEqual(expect.arrayContaining(['FIELD_VALUE_CHANGED | old client × new host | resizesMerged | - | Resized.cols']));
    // A Resized that answers a request of its own is no burst's: each is compared.
    expect(summary(burst(merged, true))).toEqual(expect.arrayContaining(['FIELD_VALUE_CHANGED | old client × new host | resizesMerged | - | Resized.cols']));
  });

  it('FIELD_VALUE_CHANGED: volatile fields come from the schema table, never from the rule', () => {
    const ledger = (id: string) => (f: RecordedFrame) => (f.opcodeName === 'Metadata' ? { ...f, payload: withPayload(f.payload, { inputLedgerId: id }) } : f);
    let set = editFrames(healthySet(), 'oldOld', ledger('ledger-a'));
    set = editFrames(set, 'oldClientNewHost', ledger('ledger-b'));
    expect(summary(set)).toEqual([]);
    // The same difference on a field the schemas do not declare volatile is a change.
    const m = manifests();
    for (const side of [m.old, m.new]) side.surface = side.surface!.map((e) => (e.kind === 'field' && e.volatile ? { ...e, volatile: undefined } : e));
    expect(summary(set, m)).toContain('FIELD_VALUE_CHANGED | old client × new host | subscribe | - | Metadata[type=subscribed].inputLedgerId');
  });

  it('FIELD_VALUE_CHANGED: an Error compares its code, not its reworded message; a late-Ack Error is timing, not a change', () => {
    // Every pairing's host answers the unsubscribe with an Error; the new host's text is `skewText`.
    const withError = (text: string, skewText = text) => {
      const set = healthySet();
      for (const key of Object.keys(set) as Array<keyof JourneyRecordingSet>) {
        const last = set[key].frames.at(-1)!;
        set[key].frames.push({ ...last, index: 900, direction: 'hostToClient', opcode: 6, opcodeName: 'Error', payload: key === 'oldClientNewHost' || key === 'newNew' ? skewText : text, rawHex: '' });
      }
      return set;
    };
    expect(summary(withError('TERMINAL_NOT_FOUND: no terminal named x', 'TERMINAL_NOT_FOUND: there is no terminal called x'))).toEqual([]);
    expect(summary(withError('TERMINAL_NOT_FOUND: no terminal named x', 'NOT_FOUND: no terminal named x'))).toEqual(['FIELD_VALUE_CHANGED | old client × new host | unsubscribe | - | Error.code']);
    // Only the old host answered a late Ack: as timing-dependent as the Ack itself.
    const lateAck = healthySet();
    lateAck.oldOld.frames.push({ ...lateAck.oldOld.frames.at(-1)!, index: 900, direction: 'hostToClient', opcode: 6, opcodeName: 'Error', payload: 'NOT_SUBSCRIBED: Ack on stream 2, which was unsubscribed' });
    expect(summary(lateAck)).toEqual([]);
  });

  it('FIELD_VALUE_CHANGED: InputAck compares its flag byte as sent, wherever both runs negotiated inputAck', () => {
    const m = manifests();
    for (const side of [m.old, m.new]) side.advertised = { host: { ...CAPS, inputAck: 1 }, client: { ...CAPS, inputAck: 1 } };
    const withAck = (flagHex: string) => (f: RecordedFrame) =>
      f.opcodeName === 'Input' && f.step === 'input' ? [f, { ...f, index: 800, direction: 'hostToClient' as const, opcode: 18, opcodeName: 'InputAck', seq: 1, payload: { status: flagHex ? 'x' : 'applied' }, rawHex: '74011200010000000000000001000000' + flagHex }] : [f];
    const build = (skewFlag: string) => {
      const set = healthySet();
      for (const key of Object.keys(set) as Array<keyof JourneyRecordingSet>) {
        set[key].negotiated = { ...CAPS, inputAck: 1 };
        // Each stream's own echo says so too.
        const echoed = (f: RecordedFrame) => (f.opcodeName === 'Metadata' && (f.payload as { type?: string }).type === 'subscribed' ? { ...f, payload: { ...(f.payload as object), capabilities: { ...CAPS, inputAck: 1 } } } : f);
        set[key].frames = set[key].frames.map(echoed).flatMap(withAck(key === 'oldClientNewHost' ? skewFlag : '01'));
      }
      return set;
    };
    expect(summary(build('01'), m)).toEqual([]);
    expect(summary(build('02'), m)).toEqual(['FIELD_VALUE_CHANGED | old client × new host | input | - | InputAck.flag']);
    expect(summary(build(''), m)).toEqual(['FIELD_VALUE_CHANGED | old client × new host | input | - | InputAck.flag']);
  });

  it('FIELD_VALUE_CHANGED: Ack bytes compared as a total per stream, so batching and the step an Ack lands in stay green', () => {
    const ack = (bytes: number[], step: StepName = 'liveOutput') => (f: RecordedFrame) => (f.opcodeName === 'Ack' ? bytes.map((b, i) => ({ ...f, index: f.index + i / 10, step, payload: { bytes: b } })) : [f]);
    // The acked stream ends with an Unsubscribe in both runs: only a cleanly ended stream has a total to compare.
    const unsubscribe = (f: RecordedFrame): RecordedFrame => ({ ...f, index: 900, step: 'unsubscribe', opcode: 10, opcodeName: 'Unsubscribe', streamId: 1, payload: null });
    const edit = (fn: (f: RecordedFrame) => RecordedFrame[], endCleanly = true) => {
      const set = healthySet();
      set.newClientOldHost.frames = set.newClientOldHost.frames.flatMap(fn);
      for (const rec of Object.values(set)) if (endCleanly) rec.frames.push(unsubscribe(rec.frames.at(-1)!));
      return set;
    };
    expect(summary(edit(ack([2, 4], 'hideReveal')))).toEqual([]);
    expect(summary(edit(ack([12])))).toEqual(['FIELD_VALUE_CHANGED | new client × old host | - | - | Ack.bytes']);
    // A stream cut by a dead link loses the Ack batched when it died: timing, not a change.
    expect(summary(edit(ack([5]), false))).toEqual([]);
    // The second client numbers its streams from 1 too: its cleanly ended stream 1 is not the primary's cut one.
    const withSecond = edit(ack([5]), false);
    for (const rec of Object.values(withSecond)) {
      const last = rec.frames.at(-1)!;
      rec.frames.push({ ...last, index: 950, client: 'second', step: 'secondClient', opcode: 13, opcodeName: 'Ack', streamId: 1, payload: { bytes: 40 } }, { ...unsubscribe(last), index: 951, client: 'second' });
    }
    expect(summary(withSecond)).toEqual([]);
  });

  it('FRAME_NO_LONGER_SENT: one of a run the sequence collapses, and output that stops on a stream', () => {
    const resume = editFrames(healthySet(), 'newClientOldHost', (f) => (f.opcodeName === 'SetOutputPaused' && (f.payload as { paused: boolean }).paused === false ? null : f));
    expect(summary(resume)).toEqual(['FRAME_NO_LONGER_SENT | new client × old host | hideReveal | - | SetOutputPaused']);
    const noOutput = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'Output' ? null : f));
    expect(summary(noOutput)).toContain('FRAME_NO_LONGER_SENT | old client × new host | - | - | Output');
  });

  it("FRAME_NO_LONGER_SENT leaves an Ack's absence to its consequences: when credit goes is the client's timing", () => {
    // A client that batches longer may never send an Ack on a short stream; a host that needed the credit stalls, and that is JOURNEY_STALLED's.
    const noAck = editFrames(healthySet(), 'newClientOldHost', (f) => (f.opcodeName === 'Ack' ? null : f));
    expect(summary(noAck)).toEqual([]);
  });

  it('whole-journey comparisons (Ack totals, output that stops on a stream) still run when the baseline skips steps in every pairing, not when one stalled', () => {
    // Against v0.1.0 the gate skips four steps its peers cannot drive, in all four pairings.
    const skipping = (set: JourneyRecordingSet, status: 'skipped' | 'stalled' = 'skipped') => {
      for (const rec of Object.values(set)) rec.steps = rec.steps.map((s) => (s.name === 'resize' ? { ...s, status: 'skipped', reason: "cannot 'resize'" } : s));
      if (status === 'stalled') set.newClientOldHost.steps = set.newClientOldHost.steps.map((s) => (s.name === 'unsubscribe' ? { ...s, status: 'stalled', missing: 'x' } : s));
      return set;
    };
    const noOutput = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'Output' ? null : f));
    expect(summary(skipping(noOutput))).toContain('FRAME_NO_LONGER_SENT | old client × new host | - | - | Output');
    const doubled = healthySet();
    for (const rec of Object.values(doubled)) {
      const last = rec.frames.at(-1)!;
      rec.frames.push({ ...last, index: 900, step: 'unsubscribe', opcode: 10, opcodeName: 'Unsubscribe', streamId: 1, payload: null });
    }
    doubled.newClientOldHost.frames = doubled.newClientOldHost.frames.map((f) => (f.opcodeName === 'Ack' ? { ...f, payload: { bytes: 12 } } : f));
    expect(summary(skipping(doubled))).toEqual(['FIELD_VALUE_CHANGED | new client × old host | - | - | Ack.bytes']);
    expect(summary(skipping(editFrames(healthySet(), 'newClientOldHost', (f) => (f.opcodeName === 'Ack' ? null : f)), 'stalled')).filter((s) => !s.startsWith('JOURNEY_STALLED'))).toEqual([]);
  });

  it("reports a gated send the new build's send gate dropped, with its site, and leaves the baseline's own drops alone", () => {
    const send = { opcode: 17, opcodeName: 'WriteUnavailable', capability: 'writeUnavailable', streamId: 3, site: 'HostStream.writeRefused (dist/src/host/host-stream.js:200:5)' };
    const set = healthySet();
    set.oldClientNewHost.ungatedSends = [{ role: 'host', side: 'new', count: 2, first: [send, send] }];
    set.newClientOldHost.ungatedSends = [{ role: 'host', side: 'old', count: 1, first: [send] }];
    expect(summary(set)).toEqual(['UNGATED_SEND_DROPPED | old client × new host | - | - | WriteUnavailable']);
    expect(run(set)[0]!.message).toContain('Sent from HostStream.writeRefused (dist/src/host/host-stream.js:200:5)');
  });

  it('every active dynamic rule in the catalog runs', () => {
    expect([...DYNAMIC_PASS.map((r) => r.id), ...RULES_OUTSIDE_RECORDINGS].sort()).toEqual(activeRules('dynamic').map((r) => r.id).sort());
  });
});
