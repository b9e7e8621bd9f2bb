import type { FrameVerdict, TextLeftOut } from '../peer/codec-peer.js';
import type { Occurrence, RecordedFrame, StepName } from '../recording.js';
import type { Peer } from './peer-process.js';
import type { ProxiedFrame } from './recording-proxy.js';
import { WIRE } from './wire-view.js';

const OCCURRENCE_OF_STEP: Partial<Record<StepName, Occurrence>> = {
  subscribe: 'initial',
  initialSnapshot: 'initial',
  hideReveal: 'reveal',
  drop: 'reconnect',
  resubscribe: 'reconnect',
  secondClient: 'attach',
};

/** Each build's decoder, running in a process of that build. */
export interface PairingCodecs {
  readonly client: Peer;
  readonly host: Peer;
}

/**
 * Frames whose text a recording keeps only as its length (TextLeftOut): no
 * rule reads an Output frame's text, since where output is split is the
 * host's timing policy (TIMING_POLICY) and what it printed is judged by the
 * screens the peers report. A walk prints MiBs of it, which both codec
 * peers sent back and every recording carried. The raw bytes stay (rawHex).
 */
const TEXT_LEFT_OUT_OF: readonly string[] = ['Output'];

const classify = async (codec: Peer, frames: readonly ProxiedFrame[]) => {
  const verdicts = await codec.call<FrameVerdict[]>('classify', { frames: frames.map((f) => f.bytes), textLeftOutOf: TEXT_LEFT_OUT_OF }, 60_000);
  // A build before the option sends the text back: recordings hold the same form whichever build decoded.
  return verdicts.map((v, i) => (v.ok && typeof v.payload === 'string' && TEXT_LEFT_OUT_OF.includes(v.opcodeName) ? { ...v, payload: { textLeftOut: frames[i]!.bytes.length - WIRE.headerBytes } satisfies TextLeftOut } : v));
};

/**
 * Turns the proxy's raw capture into recorded frames: the payload as its
 * AUTHOR decodes it, and `refusedBy` when the RECEIVING build's own decoder
 * refuses the frame (an unknown opcode, a payload its schema rejects).
 */
export async function recordFrames(captured: readonly ProxiedFrame[], codecs: PairingCodecs): Promise<RecordedFrame[]> {
  const [byClient, byHost] = await Promise.all([classify(codecs.client, captured), classify(codecs.host, captured)]);
  return captured.map((frame, index) => {
    const toClient = frame.direction === 'hostToClient';
    const authored = (toClient ? byHost : byClient)[index]!;
    const received = (toClient ? byClient : byHost)[index]!;
    const step = frame.step as StepName;
    const rawHex = Buffer.from(frame.bytes).toString('hex');
    const header = authored.ok ? authored : { ...readHeaderLoosely(frame.bytes), ...pickHeader(authored) };
    const record: RecordedFrame = {
      index,
      direction: frame.direction,
      step,
      opcode: header.opcode,
      opcodeName: authored.ok ? authored.opcodeName : `unknown(${header.opcode})`,
      streamId: header.streamId,
      seq: header.seq,
      payload: authored.ok ? authored.payload : { hex: rawHex.slice(32) },
      rawHex,
      client: frame.client,
      connection: frame.connection,
      ...(frame.fault ? { fault: frame.fault } : {}),
    };
    const occurrence = OCCURRENCE_OF_STEP[step];
    if (occurrence) record.occurrence = occurrence;
    if (!received.ok) record.refusedBy = { code: received.code, message: received.message };
    return record;
  });
}

function pickHeader(v: Extract<FrameVerdict, { ok: false }>): Partial<{ opcode: number; streamId: number; seq: number }> {
  return { ...(v.opcode !== undefined ? { opcode: v.opcode } : {}), ...(v.streamId !== undefined ? { streamId: v.streamId } : {}), ...(v.seq !== undefined ? { seq: v.seq } : {}) };
}

/** Header fields without any build's verdict, for frames the author's own decoder refuses. */
function readHeaderLoosely(bytes: Uint8Array): { opcode: number; streamId: number; seq: number } {
  if (bytes.length < 16) return { opcode: -1, streamId: -1, seq: -1 };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { opcode: bytes[2]!, streamId: view.getUint32(4, true), seq: view.getUint32(8, true) * 2 ** 32 + view.getUint32(12, true) };
}
