import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

// Unguarded, one 65535x65535 Resize took a host from 72 MiB to over 2 GiB (issue 9) and kills this
// test's worker. Guarded, the whole cell budget filled (2M cells) retains about 25 MiB.
const MEMORY_BOUND_MIB = 64;

describe('limit: terminal size and screen memory (maxCols, maxRows, maxScreenCells)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('refuses a huge Resize, ClaimViewport and Subscribe viewport with RESIZE_TOO_LARGE, allocates nothing, and the healthy client keeps its echo', async () => {
    rig = await startLimitsRig();
    const abuser = await rig.abuser();
    abuser.send('Subscribe', 0, { streamId: 1, terminal: 'abuse' });
    abuser.send('Resize', 1, { cols: 65535, rows: 65535 });
    abuser.send('ClaimViewport', 1, { cols: 65535, rows: 24 });
    abuser.send('Subscribe', 0, { streamId: 2, terminal: 'abuse', viewport: { cols: 65535, rows: 65535 } });
    // Within maxCols x maxRows, but past the cell budget once scrollback is counted.
    abuser.send('Resize', 1, { cols: 2000, rows: 1000 });
    await rig.healthy.waitFor(() => abuser.errorsWithCode('RESIZE_TOO_LARGE').length === 4, 'four RESIZE_TOO_LARGE errors');

    const { maxCols, maxRows, maxScreenCells } = DEFAULT_HOST_OPTIONS;
    expect(abuser.errorsWithCode('RESIZE_TOO_LARGE')).toEqual([
      `RESIZE_TOO_LARGE: 65535x65535 > ${maxCols}x${maxRows}`,
      `RESIZE_TOO_LARGE: 65535x24 > ${maxCols}x${maxRows}`,
      `RESIZE_TOO_LARGE: 65535x65535 > ${maxCols}x${maxRows}`,
      `RESIZE_TOO_LARGE: 2000x1000 with 1000 scrollback lines = 4000000 cells > maxScreenCells ${maxScreenCells}`,
    ]);
    const terminal = rig.host.terminal('abuse')!;
    expect([terminal.cols, terminal.rows, rig.backends.get('abuse')!.cols]).toEqual([80, 24, 80]);
    // The refused Subscribe made no stream: the connection still owns only stream 1.
    expect(rig.host.counters.limitRefusals).toBe(4);

    // The widest size the cell budget allows still applies (1900 x (50 + 1000) = 1,995,000 cells).
    abuser.send('Resize', 1, { cols: 1900, rows: 50 });
    await rig.healthy.waitFor(() => terminal.cols === 1900 && terminal.rows === 50, 'the allowed resize applied');

    // Fill its scrollback with full-width lines: the budget is what it costs.
    for (let i = 0; i < 100; i++) {
      rig.backends.get('abuse')!.emit(`${'x'.repeat(1899)}\r\n`.repeat(30));
      await terminal.screen.settled();
    }
    expect(await rig.echo()).toBeLessThan(5000);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
    expect(abuser.isClosed).toBe(false);
  });
});

describe('limit: all screens together (maxTotalScreenCells)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('refuses growing past the host-wide budget with RESIZE_TOO_LARGE and a new terminal past it with TERMINALS_PER_SERVER_LIMIT; shrinking always applies', async () => {
    // Room for two 1000x100 screens (1000 x 1100 cells each) and two 80x24 ones (80 x 1024), not a third large one.
    const maxTotalScreenCells = 2 * 1000 * 1100 + 2 * 80 * 1024 + 50_000;
    rig = await startLimitsRig({ maxTotalScreenCells });
    const abuser = await rig.abuser();
    for (const [id, name] of [[1, 'one'], [2, 'two'], [3, 'three']] as const) abuser.send('Subscribe', 0, { streamId: id, terminal: name });
    await rig.healthy.waitFor(() => rig.host.terminalCount === 4, 'three more terminals');
    abuser.send('Resize', 1, { cols: 1000, rows: 100 });
    abuser.send('Resize', 2, { cols: 1000, rows: 100 });
    abuser.send('Resize', 3, { cols: 1000, rows: 100 });
    await rig.healthy.waitFor(() => abuser.errorsWithCode('RESIZE_TOO_LARGE').length === 1, 'the third growth refused');
    expect(abuser.errorsWithCode('RESIZE_TOO_LARGE')[0]).toMatch(new RegExp(`^RESIZE_TOO_LARGE: 1000x100 would bring the screens on this host to \\d+ cells > maxTotalScreenCells ${maxTotalScreenCells}$`));
    await rig.healthy.waitFor(() => rig.host.terminal('one')!.cols === 1000 && rig.host.terminal('two')!.cols === 1000, 'the first two grown');
    expect(rig.host.terminal('three')!.cols).toBe(80);
    // A new terminal does not fit either.
    abuser.send('Subscribe', 0, { streamId: 4, terminal: 'four' });
    await rig.healthy.waitFor(() => abuser.errorsWithCode('TERMINALS_PER_SERVER_LIMIT').length === 1, 'the new terminal refused');
    expect(abuser.errorsWithCode('TERMINALS_PER_SERVER_LIMIT')[0]).toMatch(new RegExp(`a new terminal needs 81920 > maxTotalScreenCells ${maxTotalScreenCells}$`));
    // Shrinking one makes room for the third to grow.
    abuser.send('Resize', 1, { cols: 80, rows: 24 });
    await rig.healthy.waitFor(() => rig.host.terminal('one')!.cols === 80, 'the shrink applied');
    abuser.send('Resize', 3, { cols: 1000, rows: 100 });
    await rig.healthy.waitFor(() => rig.host.terminal('three')!.cols === 1000, 'the third grown once there was room');
    expect(await rig.echo()).toBeLessThan(5000);
  });
});
