/**
 * Writes fixtures/frames/*.json from scripts/golden-frames.ts with today's
 * encoder. Run it only when a frame is added on purpose (`npx tsx
 * scripts/write-golden-frames.ts`); the tests compare against the committed
 * files so an accidental byte change goes red.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeFrame, encodePayload, OPCODES, type OpcodeName, type PayloadInput } from '../src/codec/index.js';
import { GOLDEN_FRAMES, GOLDEN_FRAMES_DIR, type GoldenFrame, type GoldenFrameFile } from './golden-frames.js';

export function goldenFrameFile(golden: GoldenFrame): GoldenFrameFile {
  const payloadBytes = encodePayload(golden.opcodeName, golden.payload as PayloadInput<OpcodeName>);
  const bytes = encodeFrame({ opcode: OPCODES[golden.opcodeName].code, streamId: golden.streamId, seq: golden.seq, payload: payloadBytes });
  return {
    opcode: OPCODES[golden.opcodeName].code,
    opcodeName: golden.opcodeName,
    streamId: golden.streamId,
    seq: golden.seq,
    payload: golden.payload ?? null,
    hex: Buffer.from(bytes).toString('hex'),
  };
}

function main(): void {
  mkdirSync(GOLDEN_FRAMES_DIR, { recursive: true });
  for (const golden of GOLDEN_FRAMES) {
    writeFileSync(join(GOLDEN_FRAMES_DIR, `${golden.file}.json`), `${JSON.stringify(goldenFrameFile(golden), null, 2)}\n`);
  }
  console.log(`wrote ${GOLDEN_FRAMES.length} golden frames to ${GOLDEN_FRAMES_DIR}`);
}

main();
