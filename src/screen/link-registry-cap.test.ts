import { describe, expect, it } from 'vitest';
import { capScreenLinks } from './link-registry-cap.js';
import { serializeScreen } from './serialize-screen.js';
import { screenTerminals, type PooledTerminal } from './terminal-pool.js';
import { xtermCore } from './xterm-internals.js';

function terminal(cap?: number): PooledTerminal {
  const pooled = screenTerminals.take(80, 24, 100);
  if (cap !== undefined) capScreenLinks(pooled.term, cap);
  return pooled;
}

const write = (pooled: PooledTerminal, data: string) => new Promise<string>((resolve) => pooled.term.write(data, () => resolve(serializeScreen(pooled))));
const registered = (pooled: PooledTerminal) => xtermCore(pooled.term)!._oscLinkService!._dataByLinkId!.size;
const link = (i: number, id = '') => `\x1b]8;${id};https://example.com/${i}\x1b\\${i % 10}\x1b]8;;\x1b\\`;

describe('capScreenLinks: the OSC 8 links a screen remembers are bounded', () => {
  it('keeps at most the limit, the newest, however many a program opens on one line, with ids or without', async () => {
    for (const id of ['', 'id=x']) {
      const capped = terminal(8);
      const uncapped = terminal();
      const flood = Array.from({ length: 200 }, (_, i) => link(i, id && `id=${i}`)).join('');
      await write(capped, flood);
      await write(uncapped, flood);
      expect(registered(capped)).toBe(8);
      expect(registered(uncapped)).toBe(200); // what xterm keeps on its own
      const text = serializeScreen(capped);
      expect(text).toContain('https://example.com/199');
      expect(text).toContain('https://example.com/192');
      expect(text).not.toContain('https://example.com/191');
    }
  });

  it('leaves a screen within the limit exactly as xterm draws it, closing links included', async () => {
    const output = `${link(1)} and ${link(2, 'id=a')}\r\n${link(3, 'id=a')}\x1b]8;;https://open.example\x1b\\still linked`;
    expect(await write(terminal(8), output)).toBe(await write(terminal(), output));
  });
});
