import { decodeFrame } from '../../src/codec/header.js';
import { checkKnownEvent } from '../../src/codec/events.js';
import { Op, opcodeName } from '../../src/codec/opcodes.js';
import { decodePayload } from '../../src/codec/payload.js';
import { DEFAULT_CLIENT_CAPABILITIES, DEFAULT_HOST_CAPABILITIES } from '../../src/capabilities/defaults.js';
import { PEER_CLIENT_ARGS, PEER_HOST_ARGS, PEER_OPS, PEER_SESSION_ROLES, PEER_TRANSPORTS } from './peer-ops.js';
import { PEER_PROTOCOL_VERSION } from './protocol-version.js';
import { serveControl } from './serve-control.js';
import { buildVersion } from './version.js';

/** How this build's own decoder reads one frame: its header and payload, or its refusal. */
export type FrameVerdict =
  | { readonly ok: true; readonly opcode: number; readonly opcodeName: string; readonly streamId: number; readonly seq: number; readonly payload: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly opcode?: number; readonly streamId?: number; readonly seq?: number };

/** What a verdict holds in place of a text payload the caller asked to leave out: its length in UTF-8 bytes. */
export interface TextLeftOut {
  readonly textLeftOut: number;
}

export interface ClassifyOptions {
  /**
   * Opcode names whose text payload is decoded (a frame that is not UTF-8 is
   * still refused) but not sent back, only its length: output a walk prints
   * by the MiB, whose text no rule reads.
   */
  readonly textLeftOutOf?: ReadonlySet<string>;
}

export function classifyFrame(bytes: Uint8Array, { textLeftOutOf }: ClassifyOptions = {}): FrameVerdict {
  const decoded = decodeFrame(bytes);
  if (!decoded.ok) {
    const { code, message, opcode, streamId, seq } = decoded.error;
    return { ok: false, code, message, ...(opcode !== undefined ? { opcode } : {}), ...(streamId !== undefined ? { streamId } : {}), ...(seq !== undefined ? { seq } : {}) };
  }
  const { frame } = decoded;
  const payload = decodePayload(frame);
  if (!payload.ok) return { ok: false, code: payload.error.code, message: payload.error.message, opcode: frame.opcode, streamId: frame.streamId, seq: frame.seq };
  // The client reads a known event by its own schema past the Metadata union, which lets any {type} through: refuse here what it refuses there.
  const event = frame.opcode === Op.Metadata ? checkKnownEvent(payload.value as { type: string }, frame.payload) : undefined;
  if (event && !event.ok) return { ok: false, code: 'BAD_EVENT', message: event.message, opcode: frame.opcode, streamId: frame.streamId, seq: frame.seq };
  const name = opcodeName(frame.opcode);
  const value = typeof payload.value === 'string' && textLeftOutOf?.has(name) ? ({ textLeftOut: frame.payload.length } satisfies TextLeftOut) : (payload.value ?? null);
  return { ok: true, opcode: frame.opcode, opcodeName: name, streamId: frame.streamId, seq: frame.seq, payload: value };
}

/**
 * The verdict on a frame that made this build's decoder throw instead of
 * refusing it with a typed error: a peer reading that frame would crash, so
 * it is a verdict on the frame (compared as such by the decoder check), not a
 * peer that could not answer.
 */
export const DECODER_THREW = 'DECODER_THREW';

/** classifyFrame, with a decoder that throws read as the verdict DECODER_THREW. */
export function classifyCaught(bytes: Uint8Array, options: ClassifyOptions = {}, classify: typeof classifyFrame = classifyFrame): FrameVerdict {
  try {
    return classify(bytes, options);
  } catch (error) {
    return { ok: false, code: DECODER_THREW, message: `threw ${String(error)}` };
  }
}

/**
 * Runs `read` without capturing stack traces: a refused frame is a WireError
 * (and zod's issues before it), and the gate reads only its code and message,
 * while capturing stacks was a large share of this peer's CPU in a check.
 */
function withoutStackTraces<T>(read: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return read();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * A build's decoder as a process of its own, so the gate hears each build's
 * verdict from that build's code, never from modules the harness already loaded.
 */
export function runCodecPeer(): void {
  serveControl(
    { hello: { peerProtocol: PEER_PROTOCOL_VERSION, role: 'codec', version: buildVersion(), advertised: { ...DEFAULT_CLIENT_CAPABILITIES, ...DEFAULT_HOST_CAPABILITIES } as Record<string, number>, peerOps: PEER_OPS, transports: PEER_TRANSPORTS, clientArgs: PEER_CLIENT_ARGS, hostArgs: PEER_HOST_ARGS, sessionRoles: PEER_SESSION_ROLES } },
    {
      classify: ({ frames, textLeftOutOf = [] }: { frames: Uint8Array[]; textLeftOutOf?: string[] }) => {
        const options = { textLeftOutOf: new Set(textLeftOutOf) };
        return withoutStackTraces(() => frames.map((bytes) => classifyCaught(bytes, options)));
      },
    },
    async () => undefined,
  );
}
