import type { ClientLabel, PairingRecording, RecordedFrame, StepName } from '../../recording.js';
import { isObject } from './frame-slots.js';

/**
 * Frames a client sends only to be answered: the host needs nothing from
 * them, so whether a client asks is its own business, judged by what it then
 * shows (the step's barrier and SCREEN_MISMATCH), never by the request's
 * presence. An answer is judged only against a reference where the same
 * requests were made: beside a client that asked for other things, a
 * different answer is no change of the host's.
 */
export const REQUESTS: Readonly<Record<string, { readonly answeredBy: string }>> = {
  SnapshotRequest: { answeredBy: 'the snapshot whose SnapshotStart carries its requestId, with its chunks and end' },
};

export const isRequest = (f: Pick<RecordedFrame, 'opcodeName'>): boolean => f.opcodeName in REQUESTS;

const streamOf = (f: RecordedFrame) => `${f.client ?? 'primary'}|${f.connection ?? 0}|${f.streamId}`;

/** The host frames that answer a request: a snapshot whose start names a requestId, through its end. */
export function answerFrames(rec: PairingRecording): Set<RecordedFrame> {
  const answers = new Set<RecordedFrame>();
  const answering = new Set<string>();
  for (const f of rec.frames) {
    if (f.direction !== 'hostToClient') continue;
    const stream = streamOf(f);
    if (f.opcodeName === 'SnapshotStart') {
      if (isObject(f.payload) && typeof f.payload.requestId === 'string') answering.add(stream);
      else answering.delete(stream);
    }
    if (!answering.has(stream) || !f.opcodeName.startsWith('Snapshot')) continue;
    answers.add(f);
    if (f.opcodeName === 'SnapshotEnd') answering.delete(stream);
  }
  return answers;
}

/** The requests one client made in a step, in order: what its answers depend on. */
export function requestsIn(rec: PairingRecording, step: StepName, client: ClientLabel): string {
  return rec.frames
    .filter((f) => f.direction === 'clientToHost' && f.step === step && (f.client ?? 'primary') === client && f.fault !== 'injected' && isRequest(f))
    .map((f) => f.opcodeName)
    .join(' ');
}
