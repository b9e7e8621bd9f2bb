import { join } from 'node:path';
import type { OpcodeName } from '../src/codec/index.js';

export const GOLDEN_FRAMES_DIR = join(import.meta.dirname, '..', 'fixtures', 'frames');

/**
 * The golden frames, one per opcode and a few more for seq edges and InputAck
 * flags. scripts/write-golden-frames.ts turns them into fixtures/frames/*.json;
 * the codec tests compare against those committed files, never against this
 * list, so a codec change that alters bytes goes red.
 */
export interface GoldenFrame {
  /** File name without extension. */
  readonly file: string;
  readonly opcodeName: OpcodeName;
  readonly streamId: number;
  readonly seq: number;
  /** The decoded payload; absent for empty-payload opcodes. */
  readonly payload?: unknown;
}

const SEQ_U32_MAX = 0xffff_ffff;
const SEQ_2_32 = 0x1_0000_0000;
const SEQ_MAX = Number.MAX_SAFE_INTEGER;

export const GOLDEN_FRAMES: readonly GoldenFrame[] = [
  { file: '01-Output', opcodeName: 'Output', streamId: 1, seq: SEQ_U32_MAX, payload: 'h\u00e9llo \u001b[1mw\u00f6rld\u001b[0m \u{1f642}\r\n' },
  { file: '01-Output-seq-zero', opcodeName: 'Output', streamId: 1, seq: 0, payload: '$ ' },
  { file: '02-SnapshotStart', opcodeName: 'SnapshotStart', streamId: 1, seq: SEQ_2_32, payload: { kind: 'scrollback', cols: 80, rows: 24, requestId: 'reveal-1', seq: SEQ_2_32, source: 'headless', truncated: false } },
  { file: '03-SnapshotChunk', opcodeName: 'SnapshotChunk', streamId: 1, seq: SEQ_2_32, payload: '\u001b[H\u001b[2Jprompt$ ls\r\nREADME.md  src\r\n' },
  { file: '04-SnapshotEnd', opcodeName: 'SnapshotEnd', streamId: 1, seq: SEQ_2_32 },
  { file: '05-Resized', opcodeName: 'Resized', streamId: 2, seq: SEQ_MAX, payload: { cols: 120, rows: 40, reason: 'claim', seq: SEQ_MAX } },
  { file: '06-Error', opcodeName: 'Error', streamId: 0, seq: 0, payload: 'UNKNOWN_TERMINAL: no terminal named "t9"' },
  { file: '07-Input', opcodeName: 'Input', streamId: 0xffff_ffff, seq: SEQ_MAX, payload: 'ls -la\r' },
  { file: '07-Input-unsequenced', opcodeName: 'Input', streamId: 3, seq: 0, payload: '\u0003' },
  { file: '08-Resize', opcodeName: 'Resize', streamId: 1, seq: 0, payload: { cols: 100, rows: 30 } },
  {
    file: '09-Subscribe',
    opcodeName: 'Subscribe',
    streamId: 0,
    seq: 0,
    payload: { streamId: 1, terminal: 'main', client: { id: 'c-1', type: 'desktop' }, viewport: { cols: 80, rows: 24 }, capabilities: { ackOutput: 1, outputPause: 1, inputAck: 1 }, inputSessionId: 'in-7' },
  },
  { file: '10-Unsubscribe', opcodeName: 'Unsubscribe', streamId: 1, seq: 0 },
  { file: '11-SnapshotRequest', opcodeName: 'SnapshotRequest', streamId: 1, seq: 0, payload: { requestId: 'reveal-2', scrollbackRows: 1000 } },
  {
    file: '12-Metadata',
    opcodeName: 'Metadata',
    streamId: 1,
    seq: 512,
    payload: { type: 'subscribed', streamId: 1, terminal: 'main', cols: 80, rows: 24, seq: 512, truncated: false, capabilities: { ackOutput: 1, inputAck: 1 }, inputLedgerId: 'ledger-a1' },
  },
  { file: '13-Ack', opcodeName: 'Ack', streamId: 1, seq: 0, payload: { bytes: 196608 } },
  { file: '14-ClaimViewport', opcodeName: 'ClaimViewport', streamId: 1, seq: 0, payload: { cols: 80, rows: 24 } },
  { file: '15-OutputSpan', opcodeName: 'OutputSpan', streamId: 1, seq: 258, payload: { data: 'abc\u00e9', rawLength: 5, transformed: true } },
  { file: '16-SetOutputPaused', opcodeName: 'SetOutputPaused', streamId: 1, seq: 0, payload: { paused: true } },
  { file: '17-WriteUnavailable', opcodeName: 'WriteUnavailable', streamId: 1, seq: 0 },
  { file: '18-InputAck-applied', opcodeName: 'InputAck', streamId: 1, seq: 42, payload: { status: 'applied' } },
  { file: '18-InputAck-delivery-unknown', opcodeName: 'InputAck', streamId: 1, seq: SEQ_2_32, payload: { status: 'deliveryUnknown' } },
  { file: '18-InputAck-resend', opcodeName: 'InputAck', streamId: 1, seq: SEQ_U32_MAX, payload: { status: 'resend' } },
];

/** The committed form of one golden frame: its description plus the exact bytes. */
export interface GoldenFrameFile {
  readonly opcode: number;
  readonly opcodeName: OpcodeName;
  readonly streamId: number;
  readonly seq: number;
  /** Decoded payload (text, JSON value or InputAck status); null for empty payloads. */
  readonly payload: unknown;
  /** The whole frame, header and payload, as lowercase hex. */
  readonly hex: string;
}
