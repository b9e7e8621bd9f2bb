import { describe, expect, it } from 'vitest';
import { resolveClientOptions } from '../../src/client/options.js';
import { ClientStream } from '../../src/client/stream.js';
import type { ClientStreamEvents } from '../../src/client/stream-events.js';

/** A stream whose Subscribe went out, as the client leaves it before the host's echo. */
function subscribingStream(): ClientStream {
  const options = resolveClientOptions({ connect: () => Promise.reject(new Error('not used')) });
  const stream = new ClientStream(1, 't1', { options, send: () => {}, nextRequestId: () => 'r1', released: () => {} });
  stream.connectionUp();
  return stream;
}

// The host's echo as the Metadata decoder hands it over; `instanceId` is optional on the wire, so it is read defensively.
const echo = { cols: 80, rows: 24, seq: 0 };

describe("the stream's subscribed event", () => {
  it("carries the host terminal's instanceId when the echo has one", () => {
    const stream = subscribingStream();
    let seen: ClientStreamEvents['subscribed'] | undefined;
    stream.on('subscribed', (event) => (seen = event));
    stream.subscribed({ ...echo, instanceId: 'instance-1' } as Parameters<ClientStream['subscribed']>[0]);
    expect(seen?.instanceId).toBe('instance-1');
  });

  it('has no instanceId when the host sent none, or sent something other than a string', () => {
    for (const extra of [{}, { instanceId: 42 }]) {
      const stream = subscribingStream();
      let seen: ClientStreamEvents['subscribed'] | undefined;
      stream.on('subscribed', (event) => (seen = event));
      stream.subscribed({ ...echo, ...extra } as Parameters<ClientStream['subscribed']>[0]);
      expect(seen).toBeDefined();
      expect('instanceId' in seen!).toBe(false);
    }
  });
});
