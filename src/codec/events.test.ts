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
    const checked = checkKnownEvent(decoded.value as { type: string });
    expect(checked).toEqual({ ok: false, message: expect.stringMatching(/^'subscribed' event: truncated: /) });
  });

  it('an event this build does not know reaches the caller as data, with its fields', () => {
    const decoded = decodePayload(metadataFrame({ type: 'bell', count: 2 }));
    expect(decoded).toEqual({ ok: true, value: { type: 'bell', count: 2 } });
    expect(checkKnownEvent(decoded.ok ? (decoded.value as { type: string }) : { type: '' })).toBeUndefined();
  });
});
