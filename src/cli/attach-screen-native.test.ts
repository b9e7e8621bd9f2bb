import xtermHeadless from '@xterm/headless';
import { describe, expect, it, vi } from 'vitest';
import { waitFor } from '../../test/helpers/wait-for.js';
import { serializeScreen } from '../screen/serialize-screen.js';
import { screenWithoutScrollback } from '../screen/screen-without-scrollback.js';
import { screenTerminals } from '../screen/terminal-pool.js';
import { AttachScreen } from './attach-screen.js';

const { Terminal } = xtermHeadless;
const COLS = 40;
const ROWS = 8;

/** A real terminal emulator with a scrollback, standing in for the person's terminal. */
function localTerminal() {
  const term = new Terminal({ cols: COLS, rows: ROWS, scrollback: 200, allowProposedApi: true });
  let pending = Promise.resolve();
  const out = { rows: ROWS, columns: COLS, write: (text: string) => (pending = pending.then(() => new Promise<void>((resolve) => term.write(text, resolve)))) };
  const all = async () => {
    await pending;
    const buffer = term.buffer.active;
    return { type: buffer.type, lines: Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true)), bottom: buffer.getLine(buffer.baseY + ROWS - 1)!.translateToString(true) };
  };
  return { out, term, all };
}

/** The host's snapshot of a terminal that printed `text`. */
async function remoteSnapshot(text: string): Promise<string> {
  const remote = screenTerminals.take(COLS, ROWS, 100);
  await new Promise<void>((resolve) => remote.term.write(text, resolve));
  const snapshot = serializeScreen(remote);
  screenTerminals.give(remote);
  return snapshot;
}

const remoteLines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `remote ${from + i}\r\n`).join('');
const count = (lines: readonly string[], line: string) => lines.filter((l) => l === line).length;
const native = (out: ReturnType<typeof localTerminal>['out']) => new AttachScreen(out, undefined, undefined, true);

describe('AttachScreen in native mode', () => {
  it("puts the remote's output into the local scrollback, and scrolls the screen up before a repaint so nothing shown is erased", async () => {
    const { out, all } = localTerminal();
    out.write('mine 1\r\n$ ');
    const screen = native(out);
    screen.repaint(await remoteSnapshot(remoteLines(0, 11)));
    screen.output(remoteLines(12, 20), () => {});
    // A reconnect that could not resume: the host's screen is past what this terminal got.
    screen.repaintWhenReady(screenWithoutScrollback(await remoteSnapshot(remoteLines(0, 25)), COLS, ROWS));
    await waitFor(async () => (await all()).lines.includes('remote 25'), { what: 'the repaint' });
    const { lines } = await all();
    expect(count(lines, 'mine 1')).toBe(1);
    for (let n = 0; n <= 25; n++) expect(count(lines, `remote ${n}`), `remote ${n}`).toBeGreaterThanOrEqual(1);
    for (let n = 0; n <= 11; n++) expect(count(lines, `remote ${n}`), `remote ${n}, above the screen`).toBe(1);
  });

  it('writes notices as lines of their own on the main screen, and on the status line while the remote is on its alternate screen', async () => {
    const { out, all } = localTerminal();
    const screen = native(out);
    screen.repaint(await remoteSnapshot('$ '));
    screen.status('no answer for 1.6 s');
    // On the line below the prompt, not over the bottom row: nothing needs a repaint to take it away.
    const { lines } = await all();
    expect(lines[lines.indexOf('$ ') + 1]).toBe('[termwire: no answer for 1.6 s]');
    screen.output('\x1b[?1049halt text', () => {});
    screen.notice('link down');
    const onAlternate = await all();
    expect(onAlternate.type).toBe('alternate');
    expect(onAlternate.bottom).toBe('[termwire: link down]');
    screen.output('\x1b[?1049l', () => {});
    const back = await all();
    expect(back.type).toBe('normal');
    expect(back.lines).not.toContain('[termwire: link down]');
    screen.dispose();
  });

  it('writes a run of notices on consecutive lines, and a notice after output on a line of its own', async () => {
    const { out, all } = localTerminal();
    const screen = native(out);
    screen.repaint(await remoteSnapshot('$ '));
    screen.notice('link down');
    screen.retryNotice('retrying in 1.0 s');
    screen.notice('link back');
    screen.output('$ typed', () => {});
    screen.notice('host error X: y');
    const { lines } = await all();
    const at = lines.indexOf('$ ');
    expect(lines.slice(at, at + 6)).toEqual(['$ ', '[termwire: link down]', '[termwire: retrying in 1.0 s]', '[termwire: link back]', '$ typed', '[termwire: host error X: y]']);
  });

  it('owes no repaint for a status line that went with the alternate screen', async () => {
    vi.useFakeTimers();
    try {
      const { out } = localTerminal();
      let refreshed = 0;
      const screen = new AttachScreen(out, { shownMs: 100, refresh: () => refreshed++ }, undefined, true);
      screen.repaint('$ ');
      screen.output('\x1b[?1049h', () => {});
      screen.notice('link down');
      screen.output('\x1b[?1049l', () => {});
      vi.advanceTimersByTime(200);
      expect(refreshed).toBe(0); // a repaint on the main screen would put its lines into the scrollback again
      screen.output('\x1b[?1049h', () => {});
      screen.notice('link down');
      vi.advanceTimersByTime(200);
      expect(refreshed).toBe(1);
      screen.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it("repaints only the alternate screen while the remote is on it, and the main screen's lines stay once", async () => {
    const { out, all } = localTerminal();
    const screen = native(out);
    screen.repaint(await remoteSnapshot('main line\r\n$ '));
    screen.output('\x1b[?1049halt text', () => {});
    screen.repaintWhenReady(screenWithoutScrollback(await remoteSnapshot('main line\r\n$ \x1b[?1049halt text 2'), COLS, ROWS));
    await waitFor(async () => (await all()).lines.some((l) => l.includes('alt text 2')), { what: 'the repaint' });
    expect((await all()).type).toBe('alternate');
    screen.output('\x1b[?1049l', () => {});
    const { type, lines } = await all();
    expect(type).toBe('normal');
    expect(count(lines, 'main line')).toBe(1);
  });
});
