import { describe, expect, it } from 'vitest';
import { checkKnownEvent } from './events.js';
import { decodePayload } from './payload.js';
import { Op } from './opcodes.js';

const metadataFrame = (event: object) => ({ opcode: Op.Metadata, streamId: 1, seq: 0, flags: 0, payload: new TextEncoder().encode(JSON.stringify(event)) });

describe('a known control event that fails its own schema', () => {
  it('is refused naming the field that failed, not a field of another variant of the Metadata union', () => {
    const subscribed = { type: 'subscribed', streamId: 1, terminal: 't', cols: 80, rows: 24, seq: 0, clipped: false };
    const decoded = decodePayload(metadataFrame(subscribed));
    if (!decoded.ok) throw decoded.error;
    const checked = checkKnownEvent(decoded.value as { type: string }, metadataFrame(subscribed).payload);
    expect(checked).toEqual({ ok: false, message: expect.stringMatching(/^'subscribed' event: truncated: /) });
  });

  it('what is accepted does not change: a known event whose optional field is malformed is read without it, as before', () => {
    const frame = metadataFrame({ type: 'exit', exitCode: 0, signal: true });
    const decoded = decodePayload(frame);
    if (!decoded.ok) throw decoded.error;
    expect(checkKnownEvent(decoded.value as { type: string }, frame.payload)).toEqual({ ok: true, value: { type: 'exit' } });
  });

  it('an event this build does not know reaches the caller as its type, and is not checked', () => {
    const decoded = decodePayload(metadataFrame({ type: 'bell', count: 2 }));
    expect(decoded).toEqual({ ok: true, value: { type: 'bell' } });
    expect(checkKnownEvent({ type: 'bell' })).toBeUndefined();
  });
});
