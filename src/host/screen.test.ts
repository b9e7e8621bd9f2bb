import { describe, expect, it } from 'vitest';
import { ScreenModel } from './screen.js';

describe('a screen model that is disposed', () => {
  it('answers settled() at once, and a settle already waiting, instead of never', async () => {
    const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 });
    screen.write('hello\r\n', 7);
    await screen.settled();
    screen.write('x'.repeat(50_000), 8); // still being parsed when the screen goes
    const waiting = screen.settled();
    screen.dispose();
    await expect(waiting).resolves.toBeTypeOf('number');
    await expect(screen.settled()).resolves.toBeTypeOf('number');
  });

  it('keeps the text it last showed readable', async () => {
    const screen = new ScreenModel({ cols: 20, rows: 4, scrollback: 10 });
    screen.write('last words\r\n', 3);
    await screen.settled();
    screen.dispose();
    expect(screen.text()).toContain('last words');
  });
});
