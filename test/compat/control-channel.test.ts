import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type ControlMessage, readControl, sendControl } from '../../compat/peer/control-channel.js';

/** Everything sendControl writes, as one buffer. */
function written(messages: ControlMessage[]): Buffer {
  const sink = new PassThrough();
  const parts: Buffer[] = [];
  sink.on('data', (b: Buffer) => parts.push(b));
  for (const m of messages) sendControl(sink, m);
  return Buffer.concat(parts);
}

describe('the control channel frames its own messages (independent of the codec under test)', () => {
  const messages: ControlMessage[] = [
    { id: 1, op: 'state' },
    { id: 2, ok: true, result: { screen: 'é─𝐀', frames: [new Uint8Array([1, 2, 3])] } },
  ];

  it('reads messages split at every byte, and several in one chunk', () => {
    const bytes = written(messages);
    for (const chunking of [1, 3, bytes.length]) {
      const channel = new PassThrough();
      const got: ControlMessage[] = [];
      readControl(channel, (m) => got.push(m));
      for (let i = 0; i < bytes.length; i += chunking) channel.emit('data', bytes.subarray(i, i + chunking));
      expect(got).toEqual(messages);
    }
  });

  it('writes the byte-stream prefix older peers read: a u32 little-endian length', () => {
    const bytes = written([messages[0]!]);
    expect(bytes.readUInt32LE(0)).toBe(bytes.length - 4);
  });

  it('closes a channel that announces a message past its limit', async () => {
    const channel = new PassThrough();
    readControl(channel, () => undefined);
    const closed = new Promise<Error | undefined>((resolve) => channel.on('error', resolve).on('close', () => resolve(undefined)));
    channel.emit('data', Buffer.from([0xff, 0xff, 0xff, 0xff]));
    expect(String(await closed)).toContain('control message of 4294967295 bytes');
  });
});
