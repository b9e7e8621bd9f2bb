import { describe, expect, it } from 'vitest';
import type { Observation } from '../../compat/journey/observed-state.js';
import type { ProxiedFrame } from '../../compat/journey/recording-proxy.js';
import { unpauseRepainted, WIRE } from '../../compat/journey/wire-view.js';

// Hand-built observations: what the proxy would have seen of a reveal on the primary stream.
const frame = (direction: ProxiedFrame['direction'], opcode: number, payload = ''): ProxiedFrame => {
  const bytes = new Uint8Array(WIRE.headerBytes + payload.length);
  bytes[2] = opcode;
  bytes.set(new TextEncoder().encode(payload), WIRE.headerBytes);
  return { direction, step: 'hiddenAcrossReconnect', bytes, connection: 2, client: 'primary', opcode, streamId: 1, seq: 0 };
};
const unpause = frame('clientToHost', WIRE.opcode.SetOutputPaused, '{"paused":false}');
const pause = frame('clientToHost', WIRE.opcode.SetOutputPaused, '{"paused":true}');
const snapshotEnd = frame('hostToClient', WIRE.opcode.SnapshotEnd);

function observed(wire: ProxiedFrame[], outputPause = true): Observation {
  return { client: { negotiated: outputPause ? { outputPause: 1 } : {} }, host: {}, wire, wireCount: wire.length } as unknown as Observation;
}
const before = observed([]);

describe("a reveal waits for the host's repaint of the stream it un-paused", () => {
  it('waits after the un-pause until a SnapshotEnd comes back, though the client asked for no snapshot', () => {
    expect(unpauseRepainted(observed([pause, unpause]), before)).toBe("the host's repaint of the stream the reveal un-paused");
    expect(unpauseRepainted(observed([pause, unpause, snapshotEnd]), before)).toBeUndefined();
  });

  it('counts only a repaint after the last un-pause, not one before it', () => {
    expect(unpauseRepainted(observed([snapshotEnd, unpause]), before)).toBe("the host's repaint of the stream the reveal un-paused");
  });

  it('asks nothing where outputPause is not negotiated or nothing was un-paused', () => {
    expect(unpauseRepainted(observed([unpause], false), before)).toBeUndefined();
    expect(unpauseRepainted(observed([pause]), before)).toBeUndefined();
  });
});
