import type { Occurrence, RecordedFrame, StepName } from '../recording.js';
import type { BuildCodec } from './build-codec.js';
import type { ProxiedFrame } from './recording-proxy.js';

const OCCURRENCE_OF_STEP: Partial<Record<StepName, Occurrence>> = {
  subscribe: 'initial',
  initialSnapshot: 'initial',
  hideReveal: 'reveal',
  drop: 'reconnect',
  resubscribe: 'reconnect',
};

export interface PairingCodecs {
  readonly client: BuildCodec;
  readonly host: BuildCodec;
}

/**
 * Turns the proxy's raw capture into recorded frames: the payload as its
 * AUTHOR decoded it, and `refusedBy` when the RECEIVING build's own decoder
 * refuses the frame (an unknown opcode, a payload its schema rejects).
 */
export function recordFrames(captured: readonly ProxiedFrame[], codecs: PairingCodecs): RecordedFrame[] {
  return captured.map((frame, index) => {
    const author = frame.direction === 'hostToClient' ? codecs.host : codecs.client;
    const receiver = frame.direction === 'hostToClient' ? codecs.client : codecs.host;
    const step = frame.step as StepName;
    const rawHex = Buffer.from(frame.bytes).toString('hex');
    const authored = author.decodeFrame(frame.bytes);
    const header = authored.ok ? authored.frame : readHeaderLoosely(frame.bytes);
    const record: RecordedFrame = {
      index,
      direction: frame.direction,
      step,
      opcode: header.opcode,
      opcodeName: author.opcodeName(header.opcode),
      streamId: header.streamId,
      seq: header.seq,
      payload: authored.ok ? payloadAsAuthored(author, authored.frame, frame.bytes) : { hex: rawHex.slice(32) },
      rawHex,
    };
    const occurrence = OCCURRENCE_OF_STEP[step];
    if (occurrence) record.occurrence = occurrence;
    const verdict = receiver.decodeFrame(frame.bytes);
    const refusal = verdict.ok ? refusalOf(receiver.decodePayload(verdict.frame)) : verdict.error;
    if (refusal) record.refusedBy = { code: refusal.code, message: refusal.message };
    return record;
  });
}

function payloadAsAuthored(author: BuildCodec, decoded: unknown, bytes: Uint8Array): unknown {
  const payload = author.decodePayload(decoded);
  if (payload.ok) return payload.value ?? null;
  return { hex: Buffer.from(bytes.subarray(16)).toString('hex') };
}

function refusalOf(result: ReturnType<BuildCodec['decodePayload']>): { code: string; message: string } | undefined {
  return result.ok ? undefined : result.error;
}

/** Header fields without any build's verdict, for frames the author's own decoder refuses. */
function readHeaderLoosely(bytes: Uint8Array): { opcode: number; streamId: number; seq: number } {
  if (bytes.length < 16) return { opcode: -1, streamId: -1, seq: -1 };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { opcode: bytes[2]!, streamId: view.getUint32(4, true), seq: view.getUint32(8, true) * 2 ** 32 + view.getUint32(12, true) };
}
