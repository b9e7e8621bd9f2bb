import type { FrameDirection, JourneyRecordingSet, Occurrence, PairingKey, PairingRecording, RecordedFrame, Side, StepName } from '../../../compat/recording.js';
import { STEP_NAMES } from '../../../compat/recording.js';

// Hand-made recordings: what the journey runner would record for a healthy
// journey, built by a small script so each test plants exactly one change.
type F = [FrameDirection, StepName, string, number, unknown, Occurrence?];

const CODES: Record<string, number> = { Output: 1, SnapshotStart: 2, SnapshotChunk: 3, SnapshotEnd: 4, Resized: 5, Error: 6, Input: 7, Resize: 8, Subscribe: 9, Unsubscribe: 10, SnapshotRequest: 11, Metadata: 12, Ack: 13, ClaimViewport: 14, SetOutputPaused: 16, WriteUnavailable: 17, InputAck: 18 };
/** The capability world of these hand-made recordings, fixed so a change to this build's defaults does not move them. */
export const CAPS = { ackOutput: 1, outputPause: 1, writeUnavailable: 1 };

export function healthyScript(streamId = 1): F[] {
  const snapshot = (step: StepName, occurrence: Occurrence, extra: object = {}): F[] => [
    ['hostToClient', step, 'SnapshotStart', streamId, { kind: 'scrollback', cols: 80, rows: 24, seq: 10, source: 'headless', truncated: false, ...extra }, occurrence],
    ['hostToClient', step, 'SnapshotChunk', streamId, 'screen text', occurrence],
    ['hostToClient', step, 'SnapshotEnd', streamId, undefined, occurrence],
  ];
  return [
    ['clientToHost', 'subscribe', 'Subscribe', 0, { streamId, terminal: 't1', capabilities: CAPS }],
    ['hostToClient', 'subscribe', 'Metadata', streamId, { type: 'subscribed', streamId, terminal: 't1', cols: 80, rows: 24, seq: 0, truncated: false, capabilities: CAPS }],
    ...snapshot('initialSnapshot', 'initial'),
    ['clientToHost', 'input', 'Input', streamId, 'echo hi\r'],
    ['hostToClient', 'input', 'Output', streamId, 'echo hi\r\n'],
    ['hostToClient', 'liveOutput', 'Output', streamId, 'hi\r\n'],
    ['hostToClient', 'liveOutput', 'Output', streamId, '$ '],
    ['clientToHost', 'liveOutput', 'Ack', streamId, { bytes: 6 }],
    ['clientToHost', 'hideReveal', 'SetOutputPaused', streamId, { paused: true }],
    ['clientToHost', 'hideReveal', 'SetOutputPaused', streamId, { paused: false }],
    ['clientToHost', 'hideReveal', 'SnapshotRequest', streamId, { requestId: 'r1' }],
    ...snapshot('hideReveal', 'reveal', { requestId: 'r1' }),
    ['clientToHost', 'resubscribe', 'Subscribe', 0, { streamId: streamId + 1, terminal: 't1', capabilities: CAPS }],
    ['hostToClient', 'resubscribe', 'Metadata', streamId + 1, { type: 'subscribed', streamId: streamId + 1, terminal: 't1', cols: 80, rows: 24, seq: 12, truncated: false, capabilities: CAPS }],
    ...snapshot('resubscribe', 'reconnect').map((f) => [f[0], f[1], f[2], streamId + 1, f[4], f[5]] as F),
    ['clientToHost', 'inputAfterReconnect', 'Input', streamId + 1, 'exit\r'],
    ['clientToHost', 'unsubscribe', 'Unsubscribe', streamId + 1, undefined],
  ];
}

export function recording(client: Side, host: Side, script: F[] = healthyScript()): PairingRecording {
  const frames: RecordedFrame[] = script.map(([direction, step, opcodeName, streamId, payload, occurrence], index) => ({
    index,
    direction,
    step,
    ...(occurrence ? { occurrence } : {}),
    opcode: CODES[opcodeName] ?? 99,
    opcodeName,
    streamId,
    seq: 0,
    payload,
    rawHex: '',
  }));
  return {
    client,
    host,
    clientVersion: client === 'old' ? '1.0.0' : '1.1.0',
    hostVersion: host === 'old' ? '1.0.0' : '1.1.0',
    steps: STEP_NAMES.map((name) => ({ name, status: 'ok', durationMs: 5 })),
    frames,
    advertised: { client: { ...CAPS }, host: { ...CAPS } },
    negotiated: { ...CAPS },
    input: { typed: 'echo hi\rexit\r', reachedTerminal: 'echo hi\rexit\r' },
    screens: { client: '$ echo hi\nhi\n$ ', host: '$ echo hi\nhi\n$ ' },
    peerErrors: [],
  };
}

export function healthySet(): JourneyRecordingSet {
  return {
    newNew: recording('new', 'new'),
    oldOld: recording('old', 'old'),
    oldClientNewHost: recording('old', 'new'),
    newClientOldHost: recording('new', 'old'),
  };
}

/** Rewrites one pairing's frames: `edit` returns the replacement frame, or null to drop it. */
export function editFrames(set: JourneyRecordingSet, key: PairingKey, edit: (f: RecordedFrame) => RecordedFrame | null): JourneyRecordingSet {
  const frames = set[key].frames.map(edit).filter((f): f is RecordedFrame => f !== null);
  return { ...set, [key]: { ...set[key], frames } };
}
