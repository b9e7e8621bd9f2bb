import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  allOpcodes,
  checkJsonLimits,
  decodeFrame,
  decodePayload,
  DEFAULT_JSON_LIMITS,
  encodeFrame,
  encodePayload,
  FrameEncodeError,
  type Frame,
  Op,
  type WireError,
} from './index.js';

const utf8 = new TextEncoder();

function frameOf(opcode: number, payload: Uint8Array, streamId = 3, seq = 99): Frame {
  return { opcode, streamId, seq, flags: 0, payload };
}

function payloadError(opcode: number, payload: Uint8Array): WireError {
  const result = decodePayload(frameOf(opcode, payload));
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

function frameError(bytes: Uint8Array): WireError {
  const result = decodeFrame(bytes);
  if (result.ok) throw new Error('expected a decode error');
  return result.error;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('JSON structure limits, checked before parsing', () => {
  it('a 100k-deep nesting bomb is JSON_TOO_DEEP, found at the limit, without calling JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const bomb = utf8.encode('['.repeat(100_000));
    const error = payloadError(Op.Resize, bomb);
    expect(error.code).toBe('JSON_TOO_DEEP');
    // Stops at the first level past the limit rather than scanning the whole bomb.
    expect(error.actual).toBe(DEFAULT_JSON_LIMITS.maxJsonDepth + 1);
    expect(error.message).toContain(`maxJsonDepth ${DEFAULT_JSON_LIMITS.maxJsonDepth}`);
    expect(error).toMatchObject({ opcode: Op.Resize, streamId: 3, seq: 99 });
    expect(parse).not.toHaveBeenCalled();
  });

  it('a nesting bomb behind a malformed UTF-8 byte is still JSON_TOO_DEEP: the limits come before the text', () => {
    const bomb = Uint8Array.from([0xff, ...utf8.encode('['.repeat(1_000))]);
    expect(payloadError(Op.Resize, bomb)).toMatchObject({ code: 'JSON_TOO_DEEP', actual: DEFAULT_JSON_LIMITS.maxJsonDepth + 1 });
  });

  it('nesting exactly at the limit is accepted by the structure check', () => {
    const depth = DEFAULT_JSON_LIMITS.maxJsonDepth;
    expect(checkJsonLimits(utf8.encode('['.repeat(depth) + ']'.repeat(depth)))).toBeUndefined();
  });

  it('brackets inside strings do not count as nesting', () => {
    const payload = utf8.encode(JSON.stringify({ requestId: '['.repeat(100) + '\\"[', scrollbackRows: 1 }));
    const result = decodePayload(frameOf(Op.SnapshotRequest, payload));
    expect(result.ok).toBe(true);
  });

  it('a token flood is JSON_TOO_MANY_TOKENS without calling JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const flood = utf8.encode(`[${'0,'.repeat(DEFAULT_JSON_LIMITS.maxJsonTokens)}0]`);
    const error = payloadError(Op.Ack, flood);
    expect(error.code).toBe('JSON_TOO_MANY_TOKENS');
    expect(error.message).toContain(`maxJsonTokens ${DEFAULT_JSON_LIMITS.maxJsonTokens}`);
    expect(parse).not.toHaveBeenCalled();
  });

  it('a JSON payload above 8 MiB is PAYLOAD_TOO_LARGE naming the limit and the size', () => {
    const size = DEFAULT_JSON_LIMITS.maxJsonBytes + 1;
    const error = payloadError(Op.Subscribe, new Uint8Array(size).fill(0x20));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toContain(`${size} bytes > maxJsonBytes ${DEFAULT_JSON_LIMITS.maxJsonBytes}`);
    expect(error).toMatchObject({ limit: DEFAULT_JSON_LIMITS.maxJsonBytes, actual: size });
  });
});

describe('the encoder refuses what a peer would refuse', () => {
  it('a JSON payload above maxJsonBytes is FrameEncodeError PAYLOAD_TOO_LARGE naming both sizes', () => {
    const limits = { ...DEFAULT_JSON_LIMITS, maxJsonBytes: 16 };
    expect(() => encodePayload('Ack', { bytes: 1 }, limits)).not.toThrow();
    expect(() => encodePayload('SnapshotRequest', { requestId: 'a'.repeat(20) }, limits)).toThrow(FrameEncodeError);
    expect(() => encodePayload('SnapshotRequest', { requestId: 'a'.repeat(20) }, limits)).toThrow(/PAYLOAD_TOO_LARGE: SnapshotRequest JSON 36 bytes > maxJsonBytes 16/);
  });

  it('a JSON payload that breaks its schema is FrameEncodeError PAYLOAD_INVALID', () => {
    expect(() => encodePayload('Resize', { cols: 0, rows: 24 })).toThrow(/PAYLOAD_INVALID: Resize cols/);
  });
});

describe('text payloads are strict UTF-8', () => {
  it.each([
    ['a lone continuation byte', [0x61, 0x80]],
    ['an invalid lead byte', [0xff]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a code point cut at the end', [0x68, 0xe2, 0x82]],
  ])('%s is INVALID_UTF8 on Output, Input and in JSON', (_what, bytes) => {
    const payload = Uint8Array.from(bytes);
    for (const opcode of [Op.Output, Op.Input, Op.SnapshotChunk, Op.Error]) {
      expect(payloadError(opcode, payload)).toMatchObject({ code: 'INVALID_UTF8', opcode, streamId: 3, seq: 99 });
    }
    const json = Uint8Array.from([...utf8.encode('{"data":"'), ...bytes, ...utf8.encode('","rawLength":1,"transformed":false}')]);
    expect(payloadError(Op.OutputSpan, json).code).toBe('INVALID_UTF8');
  });

  it('a byte order mark is kept as text, not swallowed', () => {
    const result = decodePayload(frameOf(Op.Output, Uint8Array.from([0xef, 0xbb, 0xbf, 0x61])));
    expect(result).toEqual({ ok: true, value: '\ufeffa' });
  });
});

describe('header errors', () => {
  const valid = () => encodeFrame({ opcode: Op.Output, streamId: 7, seq: 5, payload: utf8.encode('x') });

  it('a seq high half above 0x1fffff is SEQ_OUT_OF_RANGE, and 0x1fffff itself is accepted', () => {
    const bytes = valid();
    const view = new DataView(bytes.buffer);
    view.setUint32(8, 0x1fffff, true);
    view.setUint32(12, 0xffffffff, true);
    const edge = decodeFrame(bytes);
    expect(edge.ok && edge.frame.seq).toBe(Number.MAX_SAFE_INTEGER);
    view.setUint32(8, 0x200000, true);
    view.setUint32(12, 0, true);
    expect(frameError(bytes)).toMatchObject({ code: 'SEQ_OUT_OF_RANGE', streamId: 7, opcode: Op.Output, actual: 0x200000, limit: 0x1fffff });
    view.setUint32(8, 0xffffffff, true);
    expect(frameError(bytes).code).toBe('SEQ_OUT_OF_RANGE');
  });

  it('an unknown opcode reports its number, stream and seq', () => {
    // The first number past the table: the next opcode a maintainer adds takes it, and this test follows.
    const firstUnassigned = Math.max(...allOpcodes().map((o) => o.code)) + 1;
    for (const opcode of [0, firstUnassigned, 200, 255]) {
      const bytes = encodeFrame({ opcode, streamId: 0xfffffffe, seq: 2 ** 40 + 3 });
      const error = frameError(bytes);
      expect(error).toMatchObject({ code: 'UNKNOWN_OPCODE', opcode, streamId: 0xfffffffe, seq: 2 ** 40 + 3 });
      expect(error.message).toContain(`opcode ${opcode}`);
    }
  });

  it('a foreign kind byte is BAD_KIND', () => {
    const bytes = valid();
    bytes[0] = 0x75;
    expect(frameError(bytes)).toMatchObject({ code: 'BAD_KIND', actual: 0x75 });
  });

  it.each([0, 2, 255])('wire version %i is BAD_VERSION', (version) => {
    const bytes = valid();
    bytes[1] = version;
    expect(frameError(bytes)).toMatchObject({ code: 'BAD_VERSION', actual: version, limit: 1 });
  });

  it('the reserved byte is ignored on read and surfaced as flags', () => {
    const bytes = valid();
    bytes[3] = 0xa5;
    const decoded = decodeFrame(bytes);
    expect(decoded.ok && decoded.frame.flags).toBe(0xa5);
  });

  it.each([0, 1, 15])('%i bytes is FRAME_TOO_SHORT', (length) => {
    expect(frameError(valid().subarray(0, length))).toMatchObject({ code: 'FRAME_TOO_SHORT', actual: length, limit: 16 });
  });
});

describe('JSON payloads follow Rule 1', () => {
  it('unknown keys are stripped, known ones kept', () => {
    const payload = utf8.encode(JSON.stringify({ cols: 90, rows: 20, fromTheFuture: { nested: true }, dpi: 2 }));
    expect(decodePayload(frameOf(Op.Resize, payload))).toEqual({ ok: true, value: { cols: 90, rows: 20 } });
  });

  it('an absent optional field stays absent', () => {
    const payload = utf8.encode(JSON.stringify({ cols: 90, rows: 20 }));
    const result = decodePayload(frameOf(Op.Resized, payload));
    expect(result.ok && Object.keys(result.value as object)).toEqual(['cols', 'rows']);
  });

  it('a missing required field is SCHEMA_MISMATCH naming the field', () => {
    const error = payloadError(Op.Resize, utf8.encode('{"cols":90}'));
    expect(error.code).toBe('SCHEMA_MISMATCH');
    expect(error.message).toContain('rows');
  });

  it('malformed JSON is BAD_JSON', () => {
    expect(payloadError(Op.Ack, utf8.encode('{"bytes":')).code).toBe('BAD_JSON');
  });
});

describe('InputAck flag byte', () => {
  it.each([
    ['absent', [], { status: 'applied' }],
    ['1', [1], { status: 'deliveryUnknown' }],
    ['2', [2], { status: 'resend' }],
    ['0', [0], { status: 'unrecognized', flag: 0 }],
    ['3', [3], { status: 'unrecognized', flag: 3 }],
    ['255', [255], { status: 'unrecognized', flag: 255 }],
  ])('flag %s decodes as expected', (_what, bytes, status) => {
    expect(decodePayload(frameOf(Op.InputAck, Uint8Array.from(bytes)))).toEqual({ ok: true, value: status });
  });
});
