/**
 * Codec section: termwire's encoder, decoder and deframer against the naive
 * codec (naive-codec.ts) and against a plain memory copy, side by side.
 */
import { decodeFrame, decodePayload, Deframer, DEFAULT_DEFRAMER_OPTIONS, type DeframerOptions, encodeFrame, encodeFrameInto, encodePayload, type Frame, lengthPrefixed, Op } from '../../src/codec/index.js';
import { streamDeframerOptions } from '../../src/transport/stream.js';
import { compare, consume } from './lib/measure.js';
import type { Row } from './lib/row.js';
import { naiveDecode, naiveEncode } from './naive-codec.js';

export const name = 'codec';

/** Targets from the codec issue, as ratios. */
const TARGETS = { smallEncodeIntoVsNaive: 5, largeDecodeVsNaive: 20, deframerVsMemcpy: 0.5, controlDecodeVsJsonParse: 0.5 } as const;
const PAYLOAD_SIZES = [1, 64, 4 * 1024, 64 * 1024] as const;
const SMALL_PAYLOAD_BYTES = 64;
const DEFRAMER_STREAM_BYTES = 32 * 1024 * 1024;
const DEFRAMER_CHUNK_BYTES = 64 * 1024;

function sizeLabel(bytes: number): string {
  return bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} B`;
}

function frameOf(size: number) {
  return { opcode: Op.Output, streamId: 7, seq: 2 ** 32 + 5, payload: new Uint8Array(size).fill(0x61) };
}

function encodeRows(size: number): Row[] {
  const frame = frameOf(size);
  const reused = new Uint8Array(16 + size);
  const [into, fresh, naive] = compare([
    () => consume(encodeFrameInto(reused, 0, frame)),
    () => consume(encodeFrame(frame).length),
    () => consume(naiveEncode(frame).length),
  ]);
  const label = sizeLabel(size);
  const gbps = (fps: number) => (fps * (16 + size)) / 1e9;
  const smallTarget = size <= SMALL_PAYLOAD_BYTES ? TARGETS.smallEncodeIntoVsNaive : undefined;
  return [
    { section: name, name: `encodeFrameInto ${label}`, value: into!, unit: ' frames/s', ratio: into! / naive!, baseline: 'naive encode', ...(smallTarget ? { target: smallTarget } : {}) },
    { section: name, name: `encodeFrameInto ${label} bandwidth`, value: gbps(into!), unit: ' GB/s' },
    { section: name, name: `encodeFrame ${label}`, value: fresh!, unit: ' frames/s', ratio: fresh! / naive!, baseline: 'naive encode' },
    { section: name, name: `naive encode ${label}`, value: naive!, unit: ' frames/s', note: `${gbps(naive!).toFixed(2)} GB/s` },
  ];
}

function decodeRows(size: number): Row[] {
  const bytes = encodeFrame(frameOf(size));
  const [ours, naive] = compare([
    () => {
      const result = decodeFrame(bytes);
      consume(result.ok ? result.frame.payload.length : -1);
    },
    () => consume(naiveDecode(bytes).payload.length),
  ]);
  const target = size === 64 * 1024 ? TARGETS.largeDecodeVsNaive : undefined;
  return [
    { section: name, name: `decodeFrame ${sizeLabel(size)}`, value: ours!, unit: ' frames/s', ratio: ours! / naive!, baseline: 'naive decode', ...(target ? { target } : {}) },
  ];
}

/** A subscribed event as the host sends it (src/host/host-connection.ts): inputAck negotiated, so with a ledger id. */
function subscribedFrame(): Frame {
  const payload = encodePayload('Metadata', {
    type: 'subscribed',
    streamId: 3,
    terminal: 'build-logs',
    cols: 120,
    rows: 40,
    seq: 1_048_576,
    truncated: false,
    capabilities: { ackOutput: 1, outputPause: 1, writeUnavailable: 1, inputAck: 1, snapshotCause: 1 },
    inputLedgerId: '6f1c2d3e-4b5a-4978-8a9b-0c1d2e3f4a5b',
    instanceId: '9a8b7c6d5e4f3a2b1c0d9e8f',
  });
  const decoded = decodeFrame(encodeFrame({ opcode: Op.Metadata, streamId: 3, seq: 1_048_576, payload }));
  if (!decoded.ok) throw decoded.error;
  return decoded.frame;
}

function controlDecodeRows(): Row[] {
  const frame = subscribedFrame();
  const check = decodePayload(frame);
  if (!check.ok) throw check.error;
  const text = new TextDecoder();
  const [ours, bare] = compare([
    () => {
      const result = decodePayload(frame);
      consume(result.ok ? (result.value as { seq: number }).seq : -1);
    },
    () => consume((JSON.parse(text.decode(frame.payload)) as { seq: number }).seq),
  ]);
  return [
    { section: name, name: 'control decode: Metadata subscribed', value: ours!, unit: ' events/s', ratio: ours! / bare!, baseline: 'bare JSON.parse of the same bytes', target: TARGETS.controlDecodeVsJsonParse, note: `${frame.payload.length} B: limits, strict UTF-8, JSON, zod` },
    { section: name, name: 'bare JSON.parse of the same bytes', value: bare!, unit: ' events/s', note: 'TextDecoder.decode, then JSON.parse' },
  ];
}

/** A long stream of every payload size, length-prefixed, cut into 64 KiB chunks. */
function mixedStreamChunks(): Uint8Array[] {
  const frames = PAYLOAD_SIZES.map((size) => lengthPrefixed(encodeFrame(frameOf(size))));
  const cycle = frames.reduce((n, f) => n + f.length, 0);
  const stream = new Uint8Array(Math.floor(DEFRAMER_STREAM_BYTES / cycle) * cycle);
  for (let at = 0, i = 0; at < stream.length; i++) {
    const frame = frames[i % frames.length]!;
    stream.set(frame, at);
    at += frame.length;
  }
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < stream.length; at += DEFRAMER_CHUNK_BYTES) chunks.push(stream.subarray(at, at + DEFRAMER_CHUNK_BYTES));
  return chunks;
}

function deframerRows(): Row[] {
  const chunks = mixedStreamChunks();
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const target = new Uint8Array(total);
  const deframeWith = (options: DeframerOptions) => () => {
    const deframer = new Deframer(options);
    let frames = 0;
    for (const chunk of chunks) frames += deframer.push(chunk).length;
    consume(frames);
  };
  const [deframeDefault, deframeStream, deframeOwned, deframeZeroed, memcpy] = compare([
    deframeWith(DEFAULT_DEFRAMER_OPTIONS),
    deframeWith(streamDeframerOptions(DEFAULT_DEFRAMER_OPTIONS.maxFrameBytes)),
    deframeWith({ ...DEFAULT_DEFRAMER_OPTIONS, reusedBufferBytes: 0, allocate: (n) => Buffer.allocUnsafe(n) }),
    deframeWith({ ...DEFAULT_DEFRAMER_OPTIONS, reusedBufferBytes: 0 }),
    () => {
      let at = 0;
      for (const chunk of chunks) {
        target.set(chunk, at);
        at += chunk.length;
      }
      consume(target[at - 1]!);
    },
  ]);
  const gbps = (passes: number) => (passes * total) / 1e9;
  const vsMemcpy = (passes: number) => ({ value: gbps(passes), unit: ' GB/s', ratio: passes / memcpy!, baseline: 'memcpy (Uint8Array.set)' });
  return [
    { section: name, name: 'Deframer (default: reused spanning buffer)', ...vsMemcpy(deframeDefault!), target: TARGETS.deframerVsMemcpy, note: 'new Deframer(): frames valid until the next push' },
    { section: name, name: 'Deframer (stream transport: default + allocUnsafe)', ...vsMemcpy(deframeStream!), target: TARGETS.deframerVsMemcpy },
    { section: name, name: 'Deframer (every frame owned: allocUnsafe)', ...vsMemcpy(deframeOwned!), note: 'reusedBufferBytes 0: a fresh buffer per spanning frame' },
    { section: name, name: 'Deframer (every frame owned: zeroed Uint8Array)', ...vsMemcpy(deframeZeroed!), note: 'reusedBufferBytes 0, default allocate: the old default' },
    { section: name, name: `memcpy of the same stream`, value: gbps(memcpy!), unit: ' GB/s' },
  ];
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of PAYLOAD_SIZES) rows.push(...encodeRows(size));
  for (const size of PAYLOAD_SIZES) rows.push(...decodeRows(size));
  rows.push(...controlDecodeRows());
  rows.push(...deframerRows());
  return rows;
}
