import { describe, expect, it } from 'vitest';
import { loadGoldenFrames } from '../../test/helpers/golden-frames.js';
import { decodeFrame, Deframer, type DeframedItem, encodeFrame, LENGTH_PREFIX_BYTES, lengthPrefixed, Op } from './index.js';

const goldens = loadGoldenFrames();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Hex of each frame, or `error:CODE`, so sequences compare in one assertion. */
function describeItems(items: readonly DeframedItem[]): string[] {
  return items.map((item) => (item.ok ? hex(item.bytes) : `error:${item.error.code}`));
}

function prefix(length: number): Uint8Array {
  const out = new Uint8Array(LENGTH_PREFIX_BYTES);
  new DataView(out.buffer).setUint32(0, length, true);
  return out;
}

const stream = concat(goldens.map((g) => lengthPrefixed(g.bytes)));
const expected = goldens.map((g) => g.hex);

describe('Deframer over the golden frames', () => {
  it('decodes the whole stream pushed at once', () => {
    expect(describeItems(new Deframer().push(stream))).toEqual(expected);
  });

  // Each push's frames are read before the next push: they are valid until then only.
  it('decodes the same frames when the stream is split at every offset', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      const deframer = new Deframer();
      const described = [...describeItems(deframer.push(stream.subarray(0, cut))), ...describeItems(deframer.push(stream.subarray(cut)))];
      expect(described, `split at offset ${cut}`).toEqual(expected);
      expect(deframer.bufferedBytes).toBe(0);
    }
  });

  it('decodes the same frames fed one byte at a time', () => {
    const deframer = new Deframer();
    const described: string[] = [];
    for (let i = 0; i < stream.length; i++) described.push(...describeItems(deframer.push(stream.subarray(i, i + 1))));
    expect(described).toEqual(expected);
  });
});

describe('Deframer limits', () => {
  const maxFrameBytes = 1024;
  const small = encodeFrame({ opcode: Op.Output, streamId: 1, seq: 7, payload: new TextEncoder().encode('after') });

  it('refuses an oversized length as soon as the 4 length bytes arrive, before its payload', () => {
    const deframer = new Deframer({ maxFrameBytes });
    const items = deframer.push(prefix(maxFrameBytes + 1));
    expect(items).toHaveLength(1);
    const [item] = items;
    if (item?.ok !== false) throw new Error('expected a refusal');
    expect(item.error.code).toBe('FRAME_TOO_LARGE');
    expect(item.error.message).toContain(`${maxFrameBytes + 1}`);
    expect(item.error.message).toContain(`maxFrameBytes ${maxFrameBytes}`);
    expect(deframer.bufferedBytes).toBe(0);
  });

  it('skips the refused frame unbuffered and continues in step with the next frame', () => {
    const declared = 1_000_000;
    const deframer = new Deframer({ maxFrameBytes });
    const items = deframer.push(prefix(declared));
    // The refused payload arrives in pieces; none of it is held.
    for (let sent = 0; sent < declared; sent += 64 * 1024) {
      items.push(...deframer.push(new Uint8Array(Math.min(64 * 1024, declared - sent)).fill(0x74)));
      expect(deframer.bufferedBytes).toBe(0);
    }
    items.push(...deframer.push(lengthPrefixed(small)));
    expect(describeItems(items)).toEqual(['error:FRAME_TOO_LARGE', hex(small)]);
  });

  it('continues when the refused frame and the next one arrive in one chunk', () => {
    const deframer = new Deframer({ maxFrameBytes });
    const chunk = concat([prefix(maxFrameBytes + 10), new Uint8Array(maxFrameBytes + 10), lengthPrefixed(small)]);
    expect(describeItems(deframer.push(chunk))).toEqual(['error:FRAME_TOO_LARGE', hex(small)]);
  });

  it('accepts a frame of exactly maxFrameBytes', () => {
    const exact = encodeFrame({ opcode: Op.Output, streamId: 1, payload: new Uint8Array(maxFrameBytes - 16).fill(0x61) });
    expect(describeItems(new Deframer({ maxFrameBytes }).push(lengthPrefixed(exact)))).toEqual([hex(exact)]);
  });

  it.each([0, 1, 15])('a declared length of %i yields bytes that decodeFrame classifies FRAME_TOO_SHORT', (length) => {
    const deframer = new Deframer();
    const items = deframer.push(concat([prefix(length), new Uint8Array(length).fill(0x74), lengthPrefixed(small)]));
    expect(items).toHaveLength(2);
    const [short, next] = items;
    if (!short?.ok || !next?.ok) throw new Error('expected two frames');
    expect(short.bytes.length).toBe(length);
    const decoded = decodeFrame(short.bytes);
    expect(decoded.ok ? 'ok' : decoded.error.code).toBe('FRAME_TOO_SHORT');
    expect(hex(next.bytes)).toBe(hex(small));
  });

  it('a zero length that ends a chunk does not crash and the stream continues', () => {
    const deframer = new Deframer();
    const first = deframer.push(prefix(0));
    const rest = deframer.push(lengthPrefixed(small));
    expect([...first, ...rest].map((i) => (i.ok ? i.bytes.length : -1))).toEqual([0, small.length]);
  });
});

describe('Deframer allocate option', () => {
  it('builds a frame that spans chunks in the buffer the allocator returns, fully overwritten', () => {
    const frame = encodeFrame({ opcode: Op.Output, streamId: 1, payload: new Uint8Array(100).fill(0x62) });
    const allocated: Uint8Array[] = [];
    const deframer = new Deframer({ reusedBufferBytes: 0, allocate: (n) => allocated[allocated.push(new Uint8Array(n).fill(0xee)) - 1]! });
    const wire = lengthPrefixed(frame);
    const items = [...deframer.push(wire.subarray(0, 50)), ...deframer.push(wire.subarray(50))];
    expect(allocated).toHaveLength(1);
    expect(items[0]?.ok && items[0].bytes).toBe(allocated[0]);
    expect(describeItems(items)).toEqual([hex(frame)]);
  });
});

describe('Deframer reusedBufferBytes option', () => {
  const frameOf = (size: number, fill: number) => encodeFrame({ opcode: Op.Output, streamId: 1, payload: new Uint8Array(size).fill(fill) });
  /** Pushes each frame cut in two, so every frame spans chunks; returns each frame as it was when returned. */
  function spanning(deframer: Deframer, frames: readonly Uint8Array[]) {
    return frames.map((frame) => {
      const wire = lengthPrefixed(frame);
      const items = [...deframer.push(wire.subarray(0, 10)), ...deframer.push(wire.subarray(10))];
      const [item] = items;
      if (items.length !== 1 || !item?.ok) throw new Error('expected one frame');
      return { bytes: item.bytes, hexWhenReturned: hex(item.bytes) };
    });
  }

  it('assembles spanning frames up to the limit in one buffer, allocated once and reused', () => {
    const allocated: number[] = [];
    const deframer = new Deframer({ reusedBufferBytes: 1024, allocate: (n) => new Uint8Array(allocated[allocated.push(n) - 1]!) });
    const frames = [frameOf(200, 0x61), frameOf(200, 0x62), frameOf(100, 0x63)];
    const got = spanning(deframer, frames);
    expect(got.map((g) => g.hexWhenReturned)).toEqual(frames.map(hex));
    expect(allocated).toEqual([216]);
    expect(new Set(got.map((g) => g.bytes.buffer)).size).toBe(1);
    // The contract: a reused frame is valid until the next push only.
    expect(hex(got[0]!.bytes)).not.toBe(hex(frames[0]!));
  });

  it('gives a frame above the limit a buffer of its own, and grows the reused one by doubling up to the limit', () => {
    const allocated: number[] = [];
    const deframer = new Deframer({ reusedBufferBytes: 300, allocate: (n) => new Uint8Array(allocated[allocated.push(n) - 1]!) });
    const frames = [frameOf(100, 0x61), frameOf(150, 0x62), frameOf(400, 0x63), frameOf(120, 0x64)];
    const got = spanning(deframer, frames);
    expect(got.map((g) => g.hexWhenReturned)).toEqual(frames.map(hex));
    expect(allocated).toEqual([116, 232, 416]);
    expect(hex(got[2]!.bytes)).toBe(hex(frames[2]!));
  });

  it('at 0 leaves every frame valid after later pushes', () => {
    const frames = [frameOf(200, 0x61), frameOf(200, 0x62)];
    const got = spanning(new Deframer({ reusedBufferBytes: 0 }), frames);
    expect(got.map((g) => hex(g.bytes))).toEqual(frames.map(hex));
  });
});

describe('Deframer default: frames valid until the next push', () => {
  const frameOf = (size: number, fill: number) => encodeFrame({ opcode: Op.Output, streamId: 1, payload: new Uint8Array(size).fill(fill) });

  it('assembles spanning frames in one reused buffer, so a kept frame is overwritten by the next', () => {
    const deframer = new Deframer();
    const frames = [frameOf(8 * 1024, 0x61), frameOf(8 * 1024, 0x62)];
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
    const got = frames.map((frame) => {
      const wire = lengthPrefixed(frame);
      const [item, ...rest] = [...deframer.push(wire.subarray(0, 10)), ...deframer.push(wire.subarray(10))];
      if (rest.length > 0 || !item?.ok) throw new Error('expected one frame');
      expect(same(item.bytes, frame), 'a frame is valid when returned').toBe(true);
      return item.bytes;
    });
    expect(got[0]!.buffer === got[1]!.buffer, 'both frames assembled in one buffer').toBe(true);
    expect(same(got[0]!, frames[1]!), 'the first frame, kept past the next push, now holds the second').toBe(true);
  });

  it('allocates a handful of buffers for a long stream of 1 B to 64 KiB frames in 64 KiB chunks, not one per spanning frame', () => {
    const sizes = [1, 64, 4 * 1024, 64 * 1024];
    const frames = sizes.map((size, i) => frameOf(size, 0x61 + i));
    const wire = concat(Array.from({ length: 64 }, (_, i) => lengthPrefixed(frames[i % frames.length]!)));
    const deframer = new Deframer();
    const buffers = new Set<ArrayBufferLike>();
    let spanning = 0;
    let i = 0;
    for (let at = 0; at < wire.length; at += 64 * 1024) {
      for (const item of deframer.push(wire.subarray(at, at + 64 * 1024))) {
        if (!item.ok) throw item.error;
        expect(hex(item.bytes)).toBe(hex(frames[i++ % frames.length]!));
        if (item.bytes.buffer !== wire.buffer) {
          spanning++;
          buffers.add(item.bytes.buffer);
        }
      }
    }
    expect(i).toBe(64);
    expect(spanning).toBeGreaterThan(10);
    // One buffer, grown by doubling when a larger frame spans; a buffer per spanning frame is the slow path.
    expect(buffers.size).toBeLessThanOrEqual(3);
  });
});
