import { serializeScreen } from './serialize-screen.js';
import { screenTerminals } from './terminal-pool.js';

/**
 * A snapshot's text with its scrollback left out: the screen it draws, and
 * nothing that would scroll off the top. A terminal repainted from a full
 * snapshot a second time would get the remote history in its own scrollback
 * twice. Read through a terminal with no scrollback of its own, so what the
 * snapshot scrolls off is gone, and serialized again.
 */
export function screenWithoutScrollback(text: string, cols: number, rows: number): Promise<string> {
  const pooled = screenTerminals.take(cols, rows, 0);
  return new Promise((resolve) => {
    pooled.term.write(text, () => {
      const screen = serializeScreen(pooled);
      screenTerminals.give(pooled);
      resolve(screen);
    });
  });
}
