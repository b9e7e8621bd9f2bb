import { describe, expect, it } from 'vitest';
import { clampParseWork, COUNTED_SEQUENCES } from './parse-work-clamp.js';
import { screenTerminals, type PooledTerminal } from './terminal-pool.js';
import { serializeScreen } from './serialize-screen.js';
import { xtermCore, type XtermParams } from './xterm-internals.js';

const COLS = 80;
const ROWS = 24;
const HUGE = 2_147_483_647;

function terminal(clamped: boolean): PooledTerminal {
  const pooled = screenTerminals.take(COLS, ROWS, 100);
  if (clamped) clampParseWork(pooled.term);
  return pooled;
}

function write(pooled: PooledTerminal, ...pieces: string[]): Promise<string> {
  for (const piece of pieces.slice(0, -1)) pooled.term.write(piece);
  return new Promise((resolve) => pooled.term.write(pieces.at(-1)!, () => resolve(serializeScreen(pooled))));
}

/** Replaces xterm's handler `method` with a recorder of the counts it is called with, so an unclamped count cannot hang the test. */
function recordCounts(pooled: PooledTerminal, method: string): number[] {
  const counts: number[] = [];
  const handler = xtermCore(pooled.term)!._inputHandler!;
  expect(typeof handler[method]).toBe('function');
  handler[method] = (params: XtermParams) => {
    counts.push(params.params[0]!);
    return true;
  };
  return counts;
}

/** Some lines of text with the cursor mid-screen, inside a scroll region, so every count has something to act on. */
const SCENE = `${Array.from({ length: ROWS }, (_, i) => `line ${i}\tx\ty`).join('\r\n')}\x1b[3;20r\x1b[10;5H`;

describe('parse work: counts clamped before xterm loops over them', () => {
  for (const sequence of COUNTED_SEQUENCES) {
    it(`${sequence.name} (CSI n ${sequence.final}) reaches xterm with at most its limit, also split across writes and with a sub-parameter`, async () => {
      const pooled = terminal(true);
      await write(pooled, SCENE, 'y');
      const counts = recordCounts(pooled, sequence.method);
      const limit = sequence.limit(pooled.term);
      await write(pooled, `\x1b[${HUGE}${sequence.final}`, '\x1b[99', `999999${sequence.final}`, `\x1b[99999999:1${sequence.final}`, `\x1b[2${sequence.final}`);
      expect(counts).toEqual([limit, limit, limit, 2]);
    });
  }

  for (const sequence of COUNTED_SEQUENCES.filter((s) => s.name !== 'REP')) {
    it(`${sequence.name}: a huge count leaves the screen as the limit does, as xterm itself draws it`, async () => {
      const reference = terminal(false);
      const clamped = terminal(true);
      const limit = sequence.limit(reference.term);
      // Not HUGE: without the clamp this test must finish too (and fail only if the screens differ).
      expect(await write(clamped, SCENE, `\x1b[${limit * 50 + 7}${sequence.final}*`)).toBe(await write(reference, SCENE, `\x1b[${limit}${sequence.final}*`));
    });
  }

  it('REP stops at the end of the line, as tmux does, and repeats within a line exactly as xterm does', async () => {
    const clamped = terminal(true);
    const reference = terminal(false);
    // Ten bytes that cost xterm 400 ms at 80x24 (and 2147483647 never ends): one line of y here.
    expect(await write(clamped, 'y\x1b[999999b')).toBe(await write(reference, 'y'.repeat(COLS)));
    expect(clamped.term.buffer.active.cursorY).toBe(0);
    const [within, xtermWithin] = [terminal(true), terminal(false)];
    expect(await write(within, 'ab\x1b[5bc\x1b[72b')).toBe(await write(xtermWithin, 'ab\x1b[5bc\x1b[72b'));
  });
});
