import { afterEach, describe, expect, it, vi } from 'vitest';
import { screenTerminals } from '../screen/terminal-pool.js';
import { ScreenModel } from './screen.js';
import { ScreenThread, type ScreenThreadKind } from './screen-thread.js';

describe.each<ScreenThreadKind>(['inline', 'worker'])('a screen model (%s) that is disposed', (kind) => {
  const newScreen = () => new ScreenModel({ cols: 20, rows: 4, scrollback: 10 }, ScreenThread.of(kind));

  it('answers settled() at once, and a settle already waiting, instead of never', async () => {
    const screen = newScreen();
    screen.write('hello\r\n', 7);
    await screen.settled();
    screen.write('x'.repeat(50_000), 8); // still being parsed when the screen goes
    const waiting = screen.settled();
    screen.dispose();
    await expect(waiting).resolves.toBeTypeOf('number');
    await expect(screen.settled()).resolves.toBeTypeOf('number');
  });

  it('keeps the text it last showed readable', async () => {
    const screen = newScreen();
    screen.write('last words\r\n', 3);
    await screen.settled();
    screen.dispose();
    expect(await screen.text()).toContain('last words');
  });

  it('reports title changes until it is disposed', async () => {
    const screen = newScreen();
    const titles: string[] = [];
    screen.onTitle((title) => titles.push(title));
    screen.write('\x1b]0;first\x07', 12);
    await screen.settled();
    screen.dispose();
    screen.write('\x1b]0;second\x07', 25);
    await screen.text();
    expect(titles).toEqual(['first']);
  });
});

describe('a screen model parsed inline, and the terminal pool', () => {
  const SIZE = { cols: 20, rows: 4, scrollback: 10 };
  afterEach(() => vi.restoreAllMocks());

  /** Watches the shared pool: which terminal each screen took, and which each gave back. */
  function watchPool() {
    const take = vi.spyOn(screenTerminals, 'take');
    const give = vi.spyOn(screenTerminals, 'give');
    return { taken: (i: number) => take.mock.results[i]?.value, given: (i: number) => give.mock.calls[i]?.[0], gives: () => give.mock.calls.length };
  }

  it('hands its terminal to the next screen model of its size, which still answers for itself alone', async () => {
    const pool = watchPool();
    const thread = ScreenThread.inline();
    const screen = new ScreenModel(SIZE, thread);
    const titles: string[] = [];
    screen.onTitle((title) => titles.push(title)); // never unsubscribed: dispose must drop it
    screen.write('mine\r\n', 6);
    await screen.settled();
    screen.dispose();
    expect(await screen.text()).toBe('mine');
    await screenTerminals.whenIdle();
    const next = new ScreenModel(SIZE, thread);
    expect(pool.taken(1)).toBeDefined();
    expect(pool.taken(1)).toBe(pool.given(0));
    next.resize(30, 6);
    next.write('\x1b]0;theirs\x07theirs\r\n', 20);
    expect(await next.text()).toBe('theirs');
    expect([await screen.text(), screen.cols, screen.rows]).toEqual(['mine', 20, 4]);
    expect(titles).toEqual([]);
    next.dispose();
  });

  it('with output still queued, drops it: the next owner of its terminal never sees it, and its waiters hear nothing more', async () => {
    const pool = watchPool();
    const thread = ScreenThread.inline();
    const screen = new ScreenModel(SIZE, thread);
    screen.write('x'.repeat(50_000), 1);
    const answers: number[] = [];
    screen.whenParsed((seq) => answers.push(seq));
    screen.dispose();
    await screen.text();
    await screenTerminals.whenIdle();
    const next = new ScreenModel(SIZE, thread);
    expect(pool.taken(1)).toBe(pool.given(0)); // the queue is the screen's, not xterm's: its terminal is clean to reuse
    next.write('after', 5);
    expect(await next.text()).toBe('after');
    expect(answers).toEqual([]);
    next.dispose();
  });
});
