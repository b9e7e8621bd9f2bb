import { describe, expect, it } from 'vitest';
import { clampParseWork } from './parse-work-clamp.js';
import { pauseAtSizeBoundSequences } from './parse-yield.js';
import { serializeScreen } from './serialize-screen.js';
import { screenTerminals, type PooledTerminal } from './terminal-pool.js';
import { xtermParser } from './xterm-internals.js';

const write = (pooled: PooledTerminal, data: string) => new Promise<string>((resolve) => pooled.term.write(data, () => resolve(serializeScreen(pooled))));

describe('pause points at size-bound sequences', () => {
  it('leave the screen exactly as xterm draws it, with the count clamps registered as the host registers them', async () => {
    const output = [
      'one\r\ntwo\r\n\x1b[?1049hon the alternate screen\x1b[2J\x1b[3;4Hthere\x1b[?1049l',
      '\x1b[5;20r\x1b[10;1Hregion\x1b[2S\x1b[1T\x1b[3L\x1b[2M\x1b[r',
      '\x1b#8\x1b[12;1H\x1b[1J\x1b[?25l\x1b[?7lno wrap past the end of this rather long line that goes past eighty columns\x1b[?7h\x1b[?25h',
      'y\x1b[5b\x1bcafter a reset\x1b[1;31mred\x1b[0m',
    ].join('');
    const reference = screenTerminals.take(80, 24, 100);
    clampParseWork(reference.term);
    const paused = screenTerminals.take(80, 24, 100);
    clampParseWork(paused.term);
    pauseAtSizeBoundSequences(paused.term);
    // Whole, and cut at every offset, since a paused parse resumes mid-write.
    expect(await write(paused, output)).toBe(await write(reference, output));
    for (let cut = 1; cut < output.length; cut += 7) {
      const [again, xterm] = [screenTerminals.take(80, 24, 100), screenTerminals.take(80, 24, 100)];
      clampParseWork(xterm.term);
      clampParseWork(again.term);
      pauseAtSizeBoundSequences(again.term);
      again.term.write(output.slice(0, cut));
      xterm.term.write(output.slice(0, cut));
      expect(await write(again, output.slice(cut)), `cut at ${cut}`).toBe(await write(xterm, output.slice(cut)));
    }
  });

  it('let other work run while one write of alternate screen switches at 1000x1000 is parsed', async () => {
    const pooled = screenTerminals.take(1000, 1000, 0);
    pauseAtSizeBoundSequences(pooled.term);
    await write(pooled, '\x1b[?1049h\x1b[?1049l'); // allocated once
    // Each switch follows a title naming it, which xterm reports from inside its parse.
    let latest = 0;
    let seenByOtherTask: number | undefined;
    const titles = pooled.term.onTitleChange((title) => {
      if (latest === 0) setTimeout(() => (seenByOtherTask = latest), 0); // what another screen's request is to the worker
      latest = Number(title);
    });
    await write(pooled, Array.from({ length: 64 }, (_, k) => `\x1b]0;${k + 1}\x07\x1b[?1049h\x1b[?1049l`).join(''));
    titles.dispose();
    expect(latest).toBe(64);
    // xterm's slice is 12 ms and a switch 10 to 24 ms: the other task runs after a few of the 64, not after all.
    expect(seenByOtherTask ?? 64).toBeLessThan(16);
    pooled.term.dispose();
  });

  it('pause only when asked to (the host asks once its slice is over): a pause costs a promise, and programs print DECSET often', () => {
    const pooled = screenTerminals.take(80, 24, 0);
    let over = false;
    const points = pauseAtSizeBoundSequences(pooled.term, () => over);
    const parse = xtermParser(pooled.term)!;
    expect(parse('\x1b[?25l\x1b[2Jdrawn\x1b[?25h')).toBeUndefined();
    over = true;
    expect(parse('\x1b[?25l')).toBeInstanceOf(Promise);
    points.dispose();
    pooled.term.dispose();
  });
});
