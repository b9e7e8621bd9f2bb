import { FrameEncodeError, WireError } from './errors.js';
import { opcodeName, opcodeSpec } from './opcodes.js';

export const FRAME_KIND = 0x74;
export const WIRE_VERSION = 1;
export const HEADER_BYTES = 16;
export const MAX_SEQ = Number.MAX_SAFE_INTEGER; // 2^53 - 1
const TWO_32 = 0x1_0000_0000;
const MAX_SEQ_HIGH = Math.floor(MAX_SEQ / TWO_32); // 0x1fffff

export interface FrameInput {
  readonly opcode: number;
  readonly streamId: number;
  readonly seq?: number;
  readonly payload?: Uint8Array;
}

export interface Frame {
  readonly opcode: number;
  readonly streamId: number;
  readonly seq: number;
  /** Byte 3: reserved, written 0 and ignored on read; surfaced for diagnostics. */
  readonly flags: number;
  /** A view into the decoded bytes, not a copy. */
  readonly payload: Uint8Array;
}

export type DecodeResult = { readonly ok: true; readonly frame: Frame } | { readonly ok: false; readonly error: WireError };

const EMPTY = new Uint8Array(0);

function checkHeaderFields(frame: FrameInput): void {
  const { opcode, streamId } = frame;
  const seq = frame.seq ?? 0;
  if (!Number.isInteger(opcode) || opcode < 0 || opcode > 255) {
    throw new FrameEncodeError('OPCODE_OUT_OF_RANGE', `opcode ${opcode} is not an integer from 0 to 255`);
  }
  if (!Number.isInteger(streamId) || streamId < 0 || streamId > 0xffffffff) {
    throw new FrameEncodeError('STREAM_ID_OUT_OF_RANGE', `streamId ${streamId} is not an integer from 0 to 4294967295`);
  }
  if (!Number.isInteger(seq) || seq < 0 || seq > MAX_SEQ) {
    throw new FrameEncodeError('SEQ_OUT_OF_RANGE', `seq ${seq} is not an integer from 0 to ${MAX_SEQ} (2^53-1)`);
  }
}

function writeU32LE(target: Uint8Array, at: number, value: number): void {
  target[at] = value & 0xff;
  target[at + 1] = (value >>> 8) & 0xff;
  target[at + 2] = (value >>> 16) & 0xff;
  target[at + 3] = (value >>> 24) & 0xff;
}

function readU32LE(source: Uint8Array, at: number): number {
  return (source[at]! | (source[at + 1]! << 8) | (source[at + 2]! << 16)) + source[at + 3]! * 0x1000000;
}

/**
 * Writes one frame into `target` at `offset` and returns the bytes written, so a
 * busy stream can reuse one buffer instead of allocating per frame.
 */
export function encodeFrameInto(target: Uint8Array, offset: number, frame: FrameInput): number {
  checkHeaderFields(frame);
  const payload = frame.payload ?? EMPTY;
  const total = HEADER_BYTES + payload.length;
  if (offset < 0 || offset + total > target.length) {
    throw new FrameEncodeError('BUFFER_TOO_SMALL', `frame of ${total} bytes at offset ${offset} exceeds target of ${target.length} bytes`);
  }
  const seq = frame.seq ?? 0;
  target[offset] = FRAME_KIND;
  target[offset + 1] = WIRE_VERSION;
  target[offset + 2] = frame.opcode;
  target[offset + 3] = 0;
  writeU32LE(target, offset + 4, frame.streamId);
  writeU32LE(target, offset + 8, Math.floor(seq / TWO_32));
  writeU32LE(target, offset + 12, seq >>> 0);
  if (payload.length > 0) target.set(payload, offset + HEADER_BYTES);
  return total;
}

/** Encodes one frame into a new buffer of exactly its size. */
export function encodeFrame(frame: FrameInput): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES + (frame.payload?.length ?? 0));
  encodeFrameInto(out, 0, frame);
  return out;
}

/**
 * Decodes one whole frame. Never throws on a peer's bytes: a short, foreign,
 * wrong-version or unknown-opcode frame is reported as a typed error, and an
 * unknown opcode still carries its number, stream and seq so the caller can
 * decide what it costs.
 */
export function decodeFrame(bytes: Uint8Array): DecodeResult {
  if (bytes.length < HEADER_BYTES) {
    return fail(new WireError('FRAME_TOO_SHORT', `frame of ${bytes.length} bytes < header of ${HEADER_BYTES} bytes`, { limit: HEADER_BYTES, actual: bytes.length }));
  }
  if (bytes[0] !== FRAME_KIND) {
    return fail(new WireError('BAD_KIND', `kind byte 0x${bytes[0]!.toString(16)} is not 0x74`, { actual: bytes[0]! }));
  }
  if (bytes[1] !== WIRE_VERSION) {
    return fail(new WireError('BAD_VERSION', `wire version ${bytes[1]} is not ${WIRE_VERSION}`, { actual: bytes[1]!, limit: WIRE_VERSION }));
  }
  const opcode = bytes[2]!;
  const streamId = readU32LE(bytes, 4);
  const seqHigh = readU32LE(bytes, 8);
  const seqLow = readU32LE(bytes, 12);
  if (seqHigh > MAX_SEQ_HIGH) {
    return fail(new WireError('SEQ_OUT_OF_RANGE', `seq high half ${seqHigh} > ${MAX_SEQ_HIGH}: value above 2^53-1`, { opcode, streamId, limit: MAX_SEQ_HIGH, actual: seqHigh }));
  }
  const seq = seqHigh * TWO_32 + seqLow;
  if (!opcodeSpec(opcode)) {
    return fail(new WireError('UNKNOWN_OPCODE', `opcode ${opcode} (${opcodeName(opcode)}) on stream ${streamId} seq ${seq} is not known to this build`, { opcode, streamId, seq }));
  }
  return { ok: true, frame: { opcode, streamId, seq, flags: bytes[3]!, payload: bytes.subarray(HEADER_BYTES) } };
}

function fail(error: WireError): DecodeResult {
  return { ok: false, error };
}
