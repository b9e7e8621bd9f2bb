import { afterEach, describe, expect, it } from 'vitest';
import { startLimitsRig, type LimitsRig } from './limits-harness.js';

// Issue 41: OSC 8 links, each with a new id, took the server to 1.75 GB within
// 90 s from 55 MB of output: xterm kept every link (about 3 KB each) while its
// line stayed on screen. Unbounded, this test's 20,000 links retain about 60 MB.
const LINKS = 20_000;
const MEMORY_BOUND_MIB = 16; // retained after a full collection

describe('limit: OSC 8 links a screen remembers (maxScreenLinks)', () => {
  let rig: LimitsRig;
  afterEach(async () => rig?.close());

  it('keeps a flood of fresh links on one line to maxScreenLinks, the newest, and the healthy client keeps its echo', async () => {
    rig = await startLimitsRig({ maxScreenLinks: 64 });
    const abuser = await rig.abuser();
    abuser.send('Subscribe', 0, { streamId: 1, terminal: 'links' });
    await rig.healthy.waitFor(() => rig.backends.has('links'), 'the linking terminal opened');
    const backend = rig.backends.get('links')!;
    for (let i = 0; i < LINKS; i += 1000) {
      backend.emit(Array.from({ length: 1000 }, (_, j) => `\x1b]8;id=${i + j};https://example.com/${i + j}\x1b\\x\x1b]8;;\x1b\\\r`).join(''));
    }
    const terminal = rig.host.terminal('links')!;
    const text = await new Promise<string>((resolve) => terminal.screen.snapshot((_seq, snapshot) => resolve(snapshot)));
    expect(text).toContain(`https://example.com/${LINKS - 1}`);
    expect(await rig.echo()).toBeLessThan(5000);
    rig.expectRetainedGrowthUnder(MEMORY_BOUND_MIB);
  });
});
