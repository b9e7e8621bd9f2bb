import { describe, expect, it } from 'vitest';
import { HostedTerminal } from '../../src/host/hosted-terminal.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { ScreenThread } from '../../src/host/screen-thread.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { ScriptBackend } from '../../src/host/script-backend.js';

/** A script terminal that records being held, as a PTY is by pause() and resume(). */
class HoldableScript extends ScriptBackend {
  readonly holds: Array<'pause' | 'resume'> = [];
  pause(): void {
    this.holds.push('pause');
  }
  resume(): void {
    this.holds.push('resume');
  }
}

const KiB = 1024;

describe('limit: output the screen has not parsed yet (screenBacklogBytes)', () => {
  it('stops reading a terminal that is screenBacklogBytes ahead of its screen, and reads again once the screen caught up', async () => {
    const backend = new HoldableScript();
    const limits = { ...DEFAULT_HOST_OPTIONS, screenBacklogBytes: 256 * KiB };
    const terminal = new HostedTerminal('flood', backend, limits, {}, () => 'id', ScreenThread.inline());
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 200; i++) backend.emit(line.repeat(4)); // 800 KiB in one go: the screen parses later
    expect(backend.holds).toEqual(['pause']);
    await terminal.screen.settled();
    expect(backend.holds).toEqual(['pause', 'resume']);
    terminal.dispose();
  });

  it('never holds a terminal whose screen keeps up', async () => {
    const backend = new HoldableScript();
    const terminal = new HostedTerminal('calm', backend, { ...DEFAULT_HOST_OPTIONS, screenBacklogBytes: 256 * KiB }, {}, () => 'id', ScreenThread.inline());
    for (let i = 0; i < 8; i++) {
      backend.emit(`${'y'.repeat(60 * KiB)}\r\n`);
      await terminal.screen.settled();
    }
    expect(backend.holds).toEqual([]);
    terminal.dispose();
  });

  it('reads all of a held terminal whose program exits, before the PTY is freed', async () => {
    // node-pty frees the PTY 200 ms after its child is gone, read or not: unguarded, output still in
    // a held PTY was lost whenever the program exited during a hold.
    const backend = new PtyBackend({ command: 'sh', args: ['-c', 'printf held-output'] });
    backend.pause(); // before the first read
    let output = '';
    backend.onData((data) => (output += data));
    await new Promise<void>((resolve) => backend.onExit(() => resolve()));
    expect(output).toBe('held-output');
  });
});
