import { afterEach, describe, expect, it, vi } from 'vitest';
import { screenTerminals } from '../screen/terminal-pool.js';
import { ScreenModel } from './screen.js';

const SIZE = { cols: 20, rows: 4, scrollback: 10 };

afterEach(() => vi.restoreAllMocks());

/** Watches the shared pool: which terminal each screen model took, and which each gave back. */
function watchPool() {
  const take = vi.spyOn(screenTerminals, 'take');
  const give = vi.spyOn(screenTerminals, 'give');
  return { taken: (i: number) => take.mock.results[i]?.value, given: (i: number) => give.mock.calls[i]?.[0], gives: () => give.mock.calls.length };
}

describe('a screen model that is disposed', () => {
  it('answers settled() at once, and a settle already waiting, instead of never', async () => {
    const screen = new ScreenModel(SIZE);
    screen.write('hello\r\n', 7);
    await screen.settled();
    screen.write('x'.repeat(50_000), 8); // still being parsed when the screen goes
    const waiting = screen.settled();
    screen.dispose();
    await expect(waiting).resolves.toBeTypeOf('number');
    await expect(screen.settled()).resolves.toBeTypeOf('number');
  });

  it('keeps the text it last showed readable', async () => {
    const screen = new ScreenModel(SIZE);
    screen.write('last words\r\n', 3);
    await screen.settled();
    screen.dispose();
    expect(screen.text()).toContain('last words');
  });

  it('hands its terminal to the next screen model of its size, which still answers for itself alone', async () => {
    const pool = watchPool();
    const screen = new ScreenModel(SIZE);
    const titles: string[] = [];
    screen.onTitle((title) => titles.push(title)); // never unsubscribed: dispose must drop it
    screen.write('mine\r\n', 6);
    await screen.settled();
    screen.dispose();
    await screenTerminals.whenIdle();
    const next = new ScreenModel(SIZE);
    expect(pool.taken(1)).toBeDefined();
    expect(pool.taken(1)).toBe(pool.given(0));
    next.resize(30, 6);
    next.write('\x1b]0;theirs\x07theirs\r\n', 20);
    await next.settled();
    expect([screen.text(), screen.cols, screen.rows]).toEqual(['mine', 20, 4]);
    expect(titles).toEqual([]);
    expect(() => screen.serialize()).toThrow(/after dispose/);
    next.dispose();
  });

  it('with output still queued, hands its terminal to no one, and its waiters hear nothing more', async () => {
    const pool = watchPool();
    const screen = new ScreenModel(SIZE);
    screen.write('x'.repeat(50_000), 1);
    const answers: number[] = [];
    screen.whenParsed((seq) => answers.push(seq));
    screen.dispose();
    expect(pool.gives()).toBe(0);
    const next = new ScreenModel(SIZE);
    next.write('after', 5);
    await next.settled(); // xterm's parse timer has run: the disposed screen's output would have been parsed by now
    expect(answers).toEqual([]);
    next.dispose();
  });
});
