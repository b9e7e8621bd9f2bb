import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../test/helpers/wait-for.js';
import { MAX_SCREEN_ESCAPE_STRING } from '../screen/escape-string-cap.js';
import { screenTerminals } from '../screen/terminal-pool.js';
import { LocalScreen } from './screen.js';

afterEach(() => vi.restoreAllMocks());

describe('a local screen that is disposed', () => {
  it('hands its terminal to the next local screen of its size, and keeps showing its own last screen', async () => {
    const take = vi.spyOn(screenTerminals, 'take');
    const give = vi.spyOn(screenTerminals, 'give');
    const screen = new LocalScreen(20, 4, 10);
    screen.write('mine\r\n');
    screen.dispose(); // the terminal goes back once what was queued is parsed
    await waitFor(() => give.mock.calls.length === 1, { what: 'the disposed screen giving its terminal back' });
    await screenTerminals.whenIdle();
    const next = new LocalScreen(20, 4, 10);
    expect(take.mock.results[1]?.value).toBeDefined();
    expect(take.mock.results[1]?.value).toBe(give.mock.calls[0]?.[0]);
    next.resize(30, 6);
    next.write('theirs');
    await next.whenIdle();
    expect(next.lines()[0]).toBe('theirs');
    expect([screen.lines(), screen.cols, screen.rows]).toEqual([['mine', '', '', ''], 20, 4]);
    next.dispose();
  });
});

describe('a local screen fed an overlong OSC string', () => {
  it('hands xterm the string cut to MAX_SCREEN_ESCAPE_STRING, as the host does, and shows what follows it', async () => {
    const probe = screenTerminals.take(4, 2, 0);
    const write = vi.spyOn(probe.term.constructor.prototype, 'write');
    screenTerminals.give(probe);
    const screen = new LocalScreen(20, 4, 10);
    screen.write(`\x1b]0;${'a'.repeat(MAX_SCREEN_ESCAPE_STRING * 2)}\x07shown`);
    await screen.whenIdle();
    const handed = write.mock.calls.map((c) => c[0]).find((d) => typeof d === 'string' && d.startsWith('\x1b]0;')) as string;
    expect(handed.length).toBe('\x1b]'.length + MAX_SCREEN_ESCAPE_STRING + '\x07shown'.length);
    expect(screen.lines()[0]).toBe('shown');
    screen.dispose();
  });
});

describe('a local screen fed a counted sequence that makes xterm loop per unit', () => {
  /** The counts xterm's own handler `method` was run with while `data` was parsed. */
  async function countsRun(method: string, data: string): Promise<number[]> {
    const screen = new LocalScreen(80, 24, 100);
    const handler = (screen as unknown as { term: { _core: { _inputHandler: Record<string, (p: { params: Int32Array }) => boolean> } } }).term._core._inputHandler;
    const counts: number[] = [];
    const spy = vi.spyOn(handler, method).mockImplementation((params) => (counts.push(params.params[0] ?? 0), true));
    screen.write(data);
    await screen.whenIdle();
    spy.mockRestore();
    screen.dispose();
    return counts;
  }

  it('repeats a character (REP) at most to the end of the line, as the host and tmux do', async () => {
    expect(await countsRun('repeatPrecedingCharacter', 'y\x1b[999999b')).toEqual([79]);
  });

  it('scrolls (SU) at most the rows of the screen', async () => {
    expect(await countsRun('scrollUp', '\x1b[999999S')).toEqual([24]);
  });
});
