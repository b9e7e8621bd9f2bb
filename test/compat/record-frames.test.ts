import { describe, expect, it } from 'vitest';
import type { Peer } from '../../compat/journey/peer-process.js';
import type { ProxiedFrame } from '../../compat/journey/recording-proxy.js';
import { recordFrames } from '../../compat/journey/record-frames.js';
import { classifyFrame, type FrameVerdict } from '../../compat/peer/codec-peer.js';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';

const output = (bytes: Uint8Array) => encodeFrame({ opcode: Op.Output, streamId: 1, seq: bytes.length, payload: bytes });
const text = (s: string) => new TextEncoder().encode(s);
const proxied = (bytes: Uint8Array, direction: ProxiedFrame['direction']): ProxiedFrame => ({ direction, step: 'burst', bytes, connection: 1, client: 'primary', opcode: bytes[2]!, streamId: 1, seq: 0 });

/** A codec peer answering in-process, by this build's classifyFrame, with or without the option (a build before it ignores it). */
function codec(honoursOption: boolean): Peer {
  return {
    call: async (op: string, args: { frames: Uint8Array[]; textLeftOutOf?: string[] }) => {
      expect(op).toBe('classify');
      const leftOut = new Set(honoursOption ? (args.textLeftOutOf ?? []) : []);
      return args.frames.map((f) => classifyFrame(f, { textLeftOutOf: leftOut })) satisfies FrameVerdict[];
    },
  } as unknown as Peer;
}

describe("a recording keeps an Output frame's length, not its text", () => {
  it('decodes the text and sends back only its length in UTF-8 bytes', () => {
    expect(classifyFrame(output(text('héllo')), { textLeftOutOf: new Set(['Output']) })).toMatchObject({ ok: true, opcodeName: 'Output', payload: { textLeftOut: 6 } });
    expect(classifyFrame(output(text('héllo')))).toMatchObject({ ok: true, payload: 'héllo' });
  });

  it('still refuses output that is not UTF-8: the text is left out of the answer, not out of the check', () => {
    expect(classifyFrame(output(new Uint8Array([0x68, 0xff, 0x69])), { textLeftOutOf: new Set(['Output']) })).toMatchObject({ ok: false, code: 'INVALID_UTF8' });
  });

  it('records the same form whether the decoding build knows the option or not, and keeps other frames whole', async () => {
    const resize = encodeFrame({ opcode: Op.Resize, streamId: 1, seq: 0, payload: text(JSON.stringify({ cols: 90, rows: 30 })) });
    const frames = [proxied(output(text('a burst of output')), 'hostToClient'), proxied(resize, 'clientToHost')];
    for (const [client, host] of [
      [codec(true), codec(true)],
      [codec(false), codec(false)],
    ]) {
      const recorded = await recordFrames(frames, { client: client!, host: host! });
      expect(recorded.map((f) => f.payload)).toEqual([{ textLeftOut: 17 }, { cols: 90, rows: 30 }]);
      expect(recorded[0]!.rawHex).toBe(Buffer.from(frames[0]!.bytes).toString('hex'));
    }
  });
});
