import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScreenThread } from '../../src/host/screen-thread.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { startTestHost, type TestHost } from './harness.js';

/** Rows coloured in every cell: a screen that takes its parser and serialiser many slices. */
const colouredRows = (rows: number, cols: number) =>
  Array.from({ length: rows }, (_, r) => `${Array.from({ length: cols }, (_, c) => `\x1b[3${c % 8};4${(c + r) % 8}mx`).join('')}\x1b[0m\r\n`).join('');

let test: TestHost | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await test?.close();
  test = undefined;
});

describe('Subscribe/Unsubscribe churn on a screen still parsing', () => {
  // ScreenBook's own tests show that a withdrawn query is never serialised for.
  it("withdraws each closed stream's snapshot from the screen, and the stream that stays gets its snapshots", async () => {
    const backend = new ScriptBackend({ banner: '$ ' });
    test = await startTestHost({ screenThread: 'inline', terminals: () => backend });
    const peer = await test.connect();
    peer.subscribe(1, 'a', { viewport: { cols: 200, rows: 50 } });
    await peer.waitFor(() => peer.snapshots(1).length === 1, 'the first snapshot');
    const withdrawn = vi.spyOn(ScreenThread.prototype, 'withdraw');
    backend.emit(colouredRows(200, 200)); // still being parsed when the churn comes
    for (let stream = 2; stream < 12; stream++) {
      peer.subscribe(stream, 'a');
      peer.send('Unsubscribe', stream, undefined);
    }
    peer.send('SnapshotRequest', 1, {});
    await peer.waitFor(() => peer.snapshots(1).length === 2, 'the snapshot stream 1 asked for');
    expect(withdrawn).toHaveBeenCalledTimes(10);
    for (let stream = 2; stream < 12; stream++) expect(peer.snapshots(stream)).toEqual([]);
  });
});
