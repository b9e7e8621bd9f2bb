import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertSeeded } from '../../test/helpers/seeded-property.js';
import {
  decodeFrame,
  decodePayload,
  Deframer,
  encodeFrame,
  encodeFrameInto,
  encodePayload,
  FrameEncodeError,
  type Frame,
  LENGTH_PREFIX_BYTES,
  lengthPrefixed,
  MAX_SEQ,
  Op,
  opcodeSpec,
  WireError,
} from './index.js';

// Runs per property; together well over 100,000 generated inputs.
const RUNS = { roundTrip: 30_000, textRoundTrip: 5_000, decodeFrameFuzz: 25_000, decodePayloadFuzz: 20_000, deframerFuzz: 10_000, deframerResync: 5_000, seqRefused: 10_000 } as const;

const anyOpcode = fc.integer({ min: 0, max: 255 });
const anyStreamId = fc.oneof(fc.constantFrom(0, 1, 0xffff_ffff), fc.integer({ min: 0, max: 0xffff_ffff }));
const anySeq = fc.oneof(fc.constantFrom(0, 2 ** 32 - 1, 2 ** 32, MAX_SEQ), fc.integer({ min: 0, max: 2 ** 32 }), fc.maxSafeNat());
const anyPayload = fc.uint8Array({ maxLength: 300 });

/** A known frame to check that a decoder still works after garbage. */
const canary = encodeFrame({ opcode: Op.Input, streamId: 9, seq: 2 ** 32 + 1, payload: new TextEncoder().encode('still ok') });

function expectCanaryDecodes(): void {
  const decoded = decodeFrame(canary);
  if (!decoded.ok) throw decoded.error;
  expect(decodePayload(decoded.frame)).toEqual({ ok: true, value: 'still ok' });
  expect(decoded.frame.seq).toBe(2 ** 32 + 1);
}

describe('codec properties (fast-check, seeded)', () => {
  it('encode -> decode round-trips any frame; an unknown opcode comes back as UNKNOWN_OPCODE with its fields', () => {
    const target = new Uint8Array(16 + 300 + 8);
    assertSeeded(
      fc.property(anyOpcode, anyStreamId, anySeq, anyPayload, fc.nat(8), (opcode, streamId, seq, payload, offset) => {
        const bytes = encodeFrame({ opcode, streamId, seq, payload });
        const written = encodeFrameInto(target, offset, { opcode, streamId, seq, payload });
        expect(target.subarray(offset, offset + written)).toEqual(bytes);
        const decoded = decodeFrame(bytes);
        if (opcodeSpec(opcode)) {
          if (!decoded.ok) throw decoded.error;
          expect(decoded.frame).toEqual({ opcode, streamId, seq, flags: 0, payload });
        } else {
          expect(decoded.ok).toBe(false);
          expect(!decoded.ok && decoded.error).toMatchObject({ code: 'UNKNOWN_OPCODE', opcode, streamId, seq });
        }
      }),
      0,
      RUNS.roundTrip,
    );
  });

  it('any well-formed text round-trips through an Output frame', () => {
    assertSeeded(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), anySeq, (text, seq) => {
        const decoded = decodeFrame(encodeFrame({ opcode: Op.Output, streamId: 1, seq, payload: encodePayload('Output', text) }));
        if (!decoded.ok) throw decoded.error;
        expect(decodePayload(decoded.frame)).toEqual({ ok: true, value: text });
      }),
      1,
      RUNS.textRoundTrip,
    );
  });

  it('decodeFrame on any bytes yields a frame or a WireError, and still decodes a valid frame afterwards', () => {
    const mutatedValid = fc
      .tuple(anyOpcode, anyStreamId, anySeq, anyPayload, fc.array(fc.tuple(fc.nat(20), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }))
      .map(([opcode, streamId, seq, payload, edits]) => {
        const bytes = encodeFrame({ opcode, streamId, seq, payload });
        for (const [at, value] of edits) if (at < bytes.length) bytes[at] = value;
        return bytes;
      });
    assertSeeded(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 64 }), mutatedValid), (bytes) => {
        let result: ReturnType<typeof decodeFrame>;
        try {
          result = decodeFrame(bytes);
        } catch (error) {
          throw new Error(`decodeFrame threw ${String(error)} instead of returning a WireError`);
        }
        if (!result.ok) expect(result.error).toBeInstanceOf(WireError);
        else expect(result.frame.seq).toBeLessThanOrEqual(MAX_SEQ);
        expectCanaryDecodes();
      }),
      2,
      RUNS.decodeFrameFuzz,
    );
  });

  it('decodePayload on any bytes under any opcode yields a value or a WireError', () => {
    const jsonish = fc.oneof(
      fc.json({ maxDepth: 40 }),
      fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', '1', 'a') as fc.Arbitrary<string>, maxLength: 80 }),
    );
    const payloadBytes = fc.oneof(fc.uint8Array({ maxLength: 80 }), jsonish.map((s) => new TextEncoder().encode(s)));
    assertSeeded(
      fc.property(anyOpcode, payloadBytes, (opcode, payload) => {
        const frame: Frame = { opcode, streamId: 1, seq: 1, flags: 0, payload };
        let result: ReturnType<typeof decodePayload>;
        try {
          result = decodePayload(frame);
        } catch (error) {
          throw new Error(`decodePayload threw ${String(error)} instead of returning a WireError`);
        }
        if (!result.ok) expect(result.error).toBeInstanceOf(WireError);
        expectCanaryDecodes();
      }),
      3,
      RUNS.decodePayloadFuzz,
    );
  });

  it('the Deframer on any chunks yields frames or FRAME_TOO_LARGE, holds at most maxFrameBytes, and ignores chunking', () => {
    const maxFrameBytes = 48;
    assertSeeded(
      fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }), (chunks) => {
        const deframer = new Deframer({ maxFrameBytes });
        const chunked: string[] = [];
        for (const chunk of chunks) {
          for (const item of deframer.push(chunk)) {
            if (!item.ok) expect(item.error).toMatchObject({ code: 'FRAME_TOO_LARGE' });
            chunked.push(item.ok ? Buffer.from(item.bytes).toString('hex') : item.error.message);
          }
          expect(deframer.bufferedBytes).toBeLessThan(Math.max(maxFrameBytes, LENGTH_PREFIX_BYTES));
        }
        const whole = new Deframer({ maxFrameBytes }).push(Buffer.concat(chunks));
        expect(whole.map((item) => (item.ok ? Buffer.from(item.bytes).toString('hex') : item.error.message))).toEqual(chunked);
      }),
      4,
      RUNS.deframerFuzz,
    );
  });

  it('after any whole records, refused or garbage, the Deframer hands over the next valid frame intact', () => {
    const maxFrameBytes = 64;
    const record = fc.uint8Array({ maxLength: 120 }).map((body) => {
      const out = new Uint8Array(LENGTH_PREFIX_BYTES + body.length);
      new DataView(out.buffer).setUint32(0, body.length, true);
      out.set(body, LENGTH_PREFIX_BYTES);
      return out;
    });
    assertSeeded(
      fc.property(fc.array(record, { maxLength: 6 }), fc.nat(400), (records, cut) => {
        const stream = Buffer.concat([...records, lengthPrefixed(canary)]);
        const at = Math.min(cut, stream.length);
        const deframer = new Deframer({ maxFrameBytes });
        const items = [...deframer.push(stream.subarray(0, at)), ...deframer.push(stream.subarray(at))];
        expect(items).toHaveLength(records.length + 1);
        const last = items.at(-1);
        if (!last?.ok) throw new Error('the valid frame after the records was lost');
        expect(Buffer.from(last.bytes).equals(Buffer.from(canary))).toBe(true);
      }),
      5,
      RUNS.deframerResync,
    );
  });

  it('encodeFrame and encodeFrameInto refuse seq outside 0..2^53-1 with SEQ_OUT_OF_RANGE', () => {
    const badSeq = fc.oneof(
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -1 }),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((d) => !Number.isInteger(d)),
      fc.double({ min: 2 ** 53, max: 1e300, noNaN: true }),
      fc.constantFrom(2 ** 53, -0.5, 0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
    );
    const target = new Uint8Array(64);
    assertSeeded(
      fc.property(badSeq, anyStreamId, (seq, streamId) => {
        for (const encode of [() => encodeFrame({ opcode: Op.Output, streamId, seq }), () => encodeFrameInto(target, 0, { opcode: Op.Output, streamId, seq })]) {
          let thrown: unknown;
          try {
            encode();
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(FrameEncodeError);
          expect(thrown).toMatchObject({ code: 'SEQ_OUT_OF_RANGE' });
        }
      }),
      6,
      RUNS.seqRefused,
    );
  });
});
