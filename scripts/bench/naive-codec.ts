/**
 * The common way to write a frame codec, kept as the benchmark's baseline: a
 * new ArrayBuffer and DataView per encoded frame, and a decoder that copies
 * the payload out (`slice`) instead of returning a view. Same wire format as
 * src/codec/header.ts, minus validation.
 */
export interface NaiveFrame {
  readonly opcode: number;
  readonly streamId: number;
  readonly seq: number;
  readonly payload: Uint8Array;
}

const TWO_32 = 0x1_0000_0000;

export function naiveEncode(frame: NaiveFrame): Uint8Array {
  const buffer = new ArrayBuffer(16 + frame.payload.length);
  const view = new DataView(buffer);
  view.setUint8(0, 0x74);
  view.setUint8(1, 1);
  view.setUint8(2, frame.opcode);
  view.setUint8(3, 0);
  view.setUint32(4, frame.streamId, true);
  view.setUint32(8, Math.floor(frame.seq / TWO_32), true);
  view.setUint32(12, frame.seq >>> 0, true);
  const bytes = new Uint8Array(buffer);
  bytes.set(frame.payload, 16);
  return bytes;
}

export function naiveDecode(bytes: Uint8Array): NaiveFrame {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 16 || view.getUint8(0) !== 0x74 || view.getUint8(1) !== 1) throw new Error('bad frame');
  return {
    opcode: view.getUint8(2),
    streamId: view.getUint32(4, true),
    seq: view.getUint32(8, true) * TWO_32 + view.getUint32(12, true),
    payload: bytes.slice(16),
  };
}
