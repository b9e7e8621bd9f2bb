import { describe, expect, it } from 'vitest';
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
