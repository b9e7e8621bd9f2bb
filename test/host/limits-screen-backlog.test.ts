import { describe, expect, it } from 'vitest';
import { HostedTerminal } from '../../src/host/hosted-terminal.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { ScreenThread } from '../../src/host/screen-thread.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { waitFor } from '../helpers/wait-for.js';

/** A script terminal that records being held and let go. */
class HoldableScript extends ScriptBackend {
  readonly holds: Array<'pause' | 'resume'> = [];
  override pause(): void {
    this.holds.push('pause');
    super.pause();
  }
  override resume(): void {
    this.holds.push('resume');
    super.resume();
  }
}

const KiB = 1024;

describe('limit: output the screen has not parsed yet (screenBacklogBytes)', () => {
  it('stops reading a terminal that is screenBacklogBytes ahead of its screen, and reads again once the screen caught up', async () => {
    const backend = new HoldableScript({ banner: '' });
    const limits = { ...DEFAULT_HOST_OPTIONS, screenBacklogBytes: 256 * KiB };
    const terminal = new HostedTerminal('flood', backend, limits, {}, () => 'id', ScreenThread.inline());
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 200; i++) backend.emit(line.repeat(4)); // 800 KiB in one go: the screen parses later
    expect(backend.holds).toEqual(['pause']);
    expect(terminal.seq).toBeLessThanOrEqual(256 * KiB + 4 * KiB); // the rest waits in the held terminal
    await waitFor(async () => (await terminal.screen.settled()) === 800 * KiB, { what: 'all 800 KiB handed on and parsed' });
    expect(backend.holds.length).toBeGreaterThanOrEqual(2);
    expect(backend.holds).toEqual(backend.holds.map((_, i) => (i % 2 === 0 ? 'pause' : 'resume'))); // held, let go, held again...
    expect(backend.holds.at(-1)).toBe('resume');
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

  it('refuses, at startup, a screenBacklogBytes xterm could not queue', () => {
    expect(() => new HostRuntime({ terminals: () => undefined, limits: { screenBacklogBytes: 64 * 1024 * KiB } })).toThrow(
      /^screenBacklogBytes 67108864 > 33554432: xterm drops output once 50,000,000 units wait to be parsed$/,
    );
  });

  it('a script terminal holds its output while paused, and hands all of it on before its exit', () => {
    const script = new ScriptBackend({ banner: '' });
    const events: string[] = [];
    script.onData((data) => events.push(data));
    script.onExit(() => events.push('exit'));
    script.pause();
    script.emit('one ');
    script.emit('two ');
    expect(events).toEqual([]);
    script.resume();
    script.pause();
    script.emit('three');
    script.kill();
    expect(events).toEqual(['one ', 'two ', 'three', 'exit']);
  });

  it.each(['inline', 'worker'] as const)('ends a terminal whose screen fails, and its neighbours go on (%s)', async (kind) => {
    // A backend that cannot be held, flooding past the 50,000,000 units a screen queues unparsed
    // (MAX_QUEUED_UNITS, xterm's own ceiling): the screen throws. Unguarded, in the worker that was
    // an uncaught error for the whole host; without the ceiling the screen queued all of it.
    const thread = ScreenThread.of(kind);
    const flooding = new ScriptBackend({ banner: '' });
    Object.assign(flooding, { pause: undefined, resume: undefined }); // as an embedder's backend without them
    const neighbour = new HostedTerminal('neighbour', new ScriptBackend({ banner: 'still here\r\n' }), DEFAULT_HOST_OPTIONS, {}, () => 'n', thread);
    const terminal = new HostedTerminal('flood', flooding, DEFAULT_HOST_OPTIONS, {}, () => 'f', thread);
    const exited = new Promise((resolve) => flooding.onExit(resolve));
    const mib = '\x1b[2J'.repeat(256 * KiB);
    for (let i = 0; i < 52; i++) flooding.emit(mib);
    const askedBeforeTheFailureWasHeard = terminal.screen.settled();
    expect(await exited).toEqual({ exitCode: null, signal: 15 });
    expect(terminal.screen.failure).toMatch(/write data discarded/);
    expect(await askedBeforeTheFailureWasHeard).toBeTypeOf('number'); // answered, not left hanging
    expect(await terminal.screen.settled()).toBeTypeOf('number');
    expect(await neighbour.screen.text()).toBe('still here');
    terminal.dispose();
    neighbour.dispose();
  });

  it('splits maxTotalScreenBacklogBytes between the running terminals, detached ones included: printers past their share are held, and all of it is parsed in the end', async () => {
    const backends = new Map<string, HoldableScript>();
    const host = new HostRuntime({
      limits: { screenBacklogBytes: 8 * 1024 * KiB, maxTotalScreenBacklogBytes: 512 * KiB },
      screenThread: 'inline',
      terminals: (name) => {
        const backend = new HoldableScript({ banner: '' });
        backends.set(name, backend);
        return backend;
      },
    });
    const names = Array.from({ length: 8 }, (_, i) => `printer${i}`);
    const terminals = names.map((name) => host.openTerminal(name)!);
    const line = `${'p'.repeat(1023)}\n`;
    // Nobody is attached: 1 MiB each, in one go, well within each one's own screenBacklogBytes.
    for (const name of names) for (let i = 0; i < 256; i++) backends.get(name)!.emit(line.repeat(4));
    const handedOn = terminals.reduce((sum, t) => sum + t.seq, 0);
    // A share of 64 KiB each, overshot by at most one 64 KiB piece, where 8 MiB went unchecked before.
    expect(handedOn).toBeLessThanOrEqual(512 * KiB + names.length * 64 * KiB);
    for (const name of names) expect(backends.get(name)!.holds[0]).toBe('pause');
    await waitFor(async () => (await Promise.all(terminals.map((t) => t.screen.settled()))).every((seq) => seq === 1024 * KiB), { what: 'every printer handed on and parsed in full' });
    await host.close();
  });

  it('holds a terminal whose output costs its screen more than maxScreenBacklogMs to parse, well within screenBacklogBytes, and reads it again once the screen is down to half', async () => {
    const backend = new HoldableScript({ banner: '' });
    const heard: boolean[] = [];
    const limits = { ...DEFAULT_HOST_OPTIONS, maxScreenBacklogMs: 1 };
    const terminal = new HostedTerminal('costly', backend, limits, { screenBehind: (_t, behind) => heard.push(behind) }, () => 'c', ScreenThread.inline());
    // Each line erased to its end (EL): output the screen must parse, not plain text it may leave unparsed once scrolled out.
    const line = `${'x'.repeat(75)}\x1b[K\r\n`;
    for (let i = 0; i < 64; i++) backend.emit(line.repeat(200)); // 1 MiB, an eighth of screenBacklogBytes
    await waitFor(() => heard.length >= 2, { what: 'the screen behind, then caught up' });
    expect(heard.slice(0, 2)).toEqual([true, false]);
    expect(backend.holds.slice(0, 2)).toEqual(['pause', 'resume']);
    await terminal.screen.settled();
    terminal.dispose();
  });

  it('logs SCREEN_BEHIND, naming the terminal and the limit, at most once a minute however often the terminal falls behind', async () => {
    const lines: string[] = [];
    const backend = new HoldableScript({ banner: '' });
    const host = new HostRuntime({ limits: { maxScreenBacklogMs: 1 }, screenThread: 'inline', log: (line) => lines.push(line), terminals: () => backend });
    const terminal = host.openTerminal('costly')!;
    // Each line erased to its end (EL): output the screen must parse, not plain text it may leave unparsed once scrolled out.
    const line = `${'x'.repeat(75)}\x1b[K\r\n`;
    for (let round = 1; round <= 2; round++) {
      for (let i = 0; i < 64; i++) backend.emit(line.repeat(200));
      await waitFor(() => backend.holds.filter((h) => h === 'resume').length >= round, { what: `caught up after round ${round}` });
    }
    expect(backend.holds.filter((h) => h === 'pause').length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.includes('SCREEN_BEHIND'))).toEqual([expect.stringMatching(/^termwire: SCREEN_BEHIND: terminal 'costly' has about \d+ ms of output to parse > maxScreenBacklogMs 1;/)]);
    await terminal.screen.settled();
    await host.close();
  });
});
