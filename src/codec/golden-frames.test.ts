import { describe, expect, it } from 'vitest';
import { loadGoldenFrames } from '../../test/helpers/golden-frames.js';
import { decodeFrame, encodeFrame, encodePayload, OPCODES, type OpcodeName, type PayloadInput, decodePayload, MAX_SEQ } from './index.js';

const goldens = loadGoldenFrames();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('golden frames (fixtures/frames, committed bytes)', () => {
  it('cover every opcode in the table and the seq edges', () => {
    const live = Object.values(OPCODES).map((o) => o.code);
    expect(new Set(goldens.map((g) => g.opcode))).toEqual(new Set(live));
    expect(goldens.map((g) => g.seq)).toEqual(expect.arrayContaining([0, 2 ** 32 - 1, 2 ** 32, MAX_SEQ]));
  });

  it.each(goldens.map((g) => [g.file, g] as const))('%s: encode(description) equals the committed bytes', (_file, golden) => {
    expect(OPCODES[golden.opcodeName].code).toBe(golden.opcode);
    const payload = encodePayload(golden.opcodeName, (golden.payload ?? undefined) as PayloadInput<OpcodeName>);
    expect(hex(encodeFrame({ opcode: golden.opcode, streamId: golden.streamId, seq: golden.seq, payload }))).toBe(golden.hex);
  });

  it.each(goldens.map((g) => [g.file, g] as const))('%s: decode(committed bytes) equals the description', (_file, golden) => {
    const decoded = decodeFrame(golden.bytes);
    if (!decoded.ok) throw decoded.error;
    expect({ opcode: decoded.frame.opcode, streamId: decoded.frame.streamId, seq: decoded.frame.seq, flags: decoded.frame.flags }).toEqual({
      opcode: golden.opcode,
      streamId: golden.streamId,
      seq: golden.seq,
      flags: 0,
    });
    const payload = decodePayload(decoded.frame);
    if (!payload.ok) throw payload.error;
    expect(payload.value ?? null).toEqual(golden.payload);
    // The payload is a view of the input bytes, not a copy.
    expect(decoded.frame.payload.buffer).toBe(golden.bytes.buffer);
  });
});
