import { afterEach, describe, expect, it } from 'vitest';
import type { TerminalClient } from '../../src/client/client.js';
import { encodeFrame } from '../../src/codec/header.js';
import { waitFor } from '../helpers/wait-for.js';
import { clientWithFakeHost } from './harness.js';
import { seededRandom } from '../helpers/seeded-random.js';

// The SIMULATED FakeHost sends seeded random frames; the client must count
// them as problems, never throw, and resynchronise afterwards.


const SEED = Number(process.env.TERMWIRE_TEST_SEED ?? 20240611);

let client: TerminalClient | undefined;
afterEach(() => client?.close());

describe('a hostile host', () => {
  it(`random frames on a live stream are survived (seed ${SEED}, replay with TERMWIRE_TEST_SEED)`, async () => {
    const random = seededRandom(SEED);
    const h = clientWithFakeHost();
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await waitFor(() => stream.counters.snapshotsApplied === 1, { what: 'initial snapshot' });
    const thrown: unknown[] = [];
    const onUncaught = (e: unknown) => thrown.push(e);
    process.on('uncaughtException', onUncaught);
    const junkFrames = 300;
    try {
      for (let i = 0; i < junkFrames; i++) {
        const length = Math.floor(random() * 40);
        const payload = Uint8Array.from({ length }, () => Math.floor(random() * 256));
        // Opcodes 0..24 cover every known one plus unknowns; text that happens to be JSON-ish is fine too.
        const opcode = Math.floor(random() * 25);
        const streamId = random() < 0.8 ? stream.id : Math.floor(random() * 4);
        await h.host.sendRaw(0, encodeFrame({ opcode, streamId, seq: Math.floor(random() * 1000), payload }));
      }
      await h.host.idle();
      await waitFor(() => client!.counters.framesReceived >= junkFrames + 3, { what: `all junk frames received (seed ${SEED})` });
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(thrown, `seed ${SEED}`).toEqual([]);
    expect(client.connected, `seed ${SEED}`).toBe(true);
    const problems = Object.values(client.counters.problems).reduce((a, b) => a + (b ?? 0), 0);
    expect(problems, `seed ${SEED}`).toBeGreaterThan(0);
    // Junk may have left a half-open snapshot or a bogus seq; a fresh snapshot puts the screen right.
    await h.host.output('t1', 'after the storm');
    stream.requestSnapshot();
    await waitFor(() => stream.rx.tracker.lastSeq === h.host.seqOf('t1') && !stream.rx.tracker.awaitingSnapshot, { what: `resync after junk (seed ${SEED})` });
    await stream.whenIdle();
    expect(stream.screenText(), `seed ${SEED}`).toBe(h.host.screenText('t1'));
  });
});
