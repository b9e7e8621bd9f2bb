import { afterEach, describe, expect, it } from 'vitest';
import type { TerminalClient } from '../../src/client/client.js';
import { waitFor } from '../helpers/wait-for.js';
import { clientWithFakeHost } from './harness.js';
import { ManualScheduler } from './manual-scheduler.js';

// Over the simulated host of harness.ts: xterm's refusal (past 50 MB pending) is played by a screen that returns false.
let client: TerminalClient | undefined;
afterEach(() => client?.close());

describe('a screen that refuses output', () => {
  it('is repainted from a snapshot, and the hole is reported', async () => {
    const h = clientWithFakeHost({ scheduler: new ManualScheduler() });
    client = h.client;
    client.start();
    const stream = client.subscribe('t1');
    await waitFor(() => stream.counters.snapshotsApplied === 1, { what: 'initial snapshot' });
    const screen = stream.rx.screen!;
    const write = screen.write.bind(screen);
    let refuse = true;
    screen.write = (text, onParsed) => (refuse ? ((refuse = false), false) : write(text, onParsed));
    const problems: string[] = [];
    stream.on('problem', (p) => problems.push(p.code));
    await h.host.output('t1', 'lost in the overrun');
    await waitFor(() => h.host.framesNamed('SnapshotRequest').length === 1, { what: 'a SnapshotRequest after the refused write' });
    await waitFor(() => stream.counters.snapshotsApplied === 2, { what: 'the repaint' });
    await stream.whenIdle();
    expect(problems).toContain('SCREEN_OVERRUN');
    expect(stream.screenText()).toContain('lost in the overrun');
  });
});
