import xtermHeadless from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/helpers/wait-for.js';
import { serializeScreen } from '../screen/serialize-screen.js';
import { screenWithoutScrollback } from '../screen/screen-without-scrollback.js';
import { screenTerminals } from '../screen/terminal-pool.js';
import { AttachScreen } from './attach-screen.js';

const { Terminal } = xtermHeadless;
const COLS = 40;
const ROWS = 8;

/** A real terminal emulator standing in for the person's terminal. */
function localTerminal() {
  const term = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  let pending = Promise.resolve();
  const out = {
    rows: ROWS,
    columns: COLS,
    term,
    write: (text: string) => (pending = pending.then(() => new Promise<void>((resolve) => term.write(text, resolve)))),
  };
  const settled = async () => {
    await pending;
    const buffer = term.buffer.active;
    const lines = Array.from({ length: ROWS }, (_, y) => buffer.getLine(buffer.viewportY + y)!.translateToString(true));
    return { lines, cursor: { x: buffer.cursorX, y: buffer.cursorY } };
  };
  return { out, settled };
}

// A snapshot that leaves the cursor after a prompt on the third row.
const SNAPSHOT = 'line one\r\nline two\r\n$ ';

describe('AttachScreen', () => {
  it('shows a reconnect notice on the bottom row after the repaint, with the cursor where the snapshot left it', async () => {
    const { out, settled } = localTerminal();
    const screen = new AttachScreen(out);
    screen.noticeOverRepaint('link back after 1.0 s down');
    screen.repaint(SNAPSHOT);
    const { lines, cursor } = await settled();
    expect(lines.slice(0, 3)).toEqual(['line one', 'line two', '$ ']);
    expect(lines[ROWS - 1]).toBe('[termwire: link back after 1.0 s down]');
    expect(cursor).toEqual({ x: 2, y: 2 });
  });

  it('joins the notices waiting for one repaint, cuts them to the width, and shows them once', async () => {
    const { out, settled } = localTerminal();
    const screen = new AttachScreen(out);
    screen.noticeOverRepaint('link back');
    screen.noticeOverRepaint("the host's terminal is a new one (the old shell is gone)");
    screen.repaint(SNAPSHOT);
    expect((await settled()).lines[ROWS - 1]).toBe("[termwire: link back; the host's term…]");
    screen.repaint(SNAPSHOT);
    expect((await settled()).lines[ROWS - 1]).toBe('');
  });

  it('keeps a run of retry notices on one line, the latest shown and cut to one row; anything else in between starts a new line', async () => {
    const { out, settled } = localTerminal();
    const screen = new AttachScreen(out);
    screen.notice('link down');
    screen.retryNotice('cannot connect: a reason longer than the terminal is wide; retrying in 0.5 s');
    screen.retryNotice('retrying in 1.0 s');
    screen.retryNotice('retrying in 2.0 s');
    const shown = (await settled()).lines.filter((l) => l !== '');
    expect(shown).toEqual(['[termwire: link down]', '[termwire: retrying in 2.0 s]']);
    screen.notice('host error X: y');
    screen.retryNotice('retrying in 4.0 s');
    expect((await settled()).lines.filter((l) => l !== '')).toEqual([...shown, '[termwire: host error X: y]', '[termwire: retrying in 4.0 s]']);
  });

  it('repaints from a fresh snapshot a while after it drew a status line, so the notice leaves no trace', async () => {
    const { out, settled } = localTerminal();
    let refreshed = 0;
    const screen = new AttachScreen(out, { shownMs: 20, refresh: () => refreshed++ });
    screen.repaint(SNAPSHOT);
    screen.noticeOverRepaint('link back after 1.0 s down');
    screen.repaint(SNAPSHOT);
    expect((await settled()).lines[ROWS - 1]).toBe('[termwire: link back after 1.0 s down]');
    await waitFor(() => refreshed === 1, { what: 'the refresh asked for' });
    screen.repaint(SNAPSHOT); // the host's answer
    expect((await settled()).lines[ROWS - 1]).toBe('');
    expect(refreshed).toBe(1); // a repaint without notices asks for nothing more
    screen.dispose();
  });

  it("hands the remote's output on as written only once the terminal's write has completed", () => {
    const completions: Array<() => void> = [];
    const written: string[] = [];
    const out = { write: (text: string, done?: () => void) => (written.push(text), done && completions.push(done), false) };
    const screen = new AttachScreen(out);
    let delivered = 0;
    screen.output('a burst of output', () => delivered++);
    expect(written).toEqual(['a burst of output']);
    expect(delivered).toBe(0); // still in the terminal's write queue: the host must not send more for it yet
    completions.splice(0).forEach((done) => done());
    expect(delivered).toBe(1);
  });

  it("keeps the user's screen in their scrollback at the first repaint, and the remote history once however often it repaints", async () => {
    const { out, term } = localTerminalWithHistory();
    await write(term, 'mine 1\r\nmine 2\r\n$ ');
    const screen = new AttachScreen(out);
    const snapshot = await remoteSnapshot(Array.from({ length: 12 }, (_, i) => `remote ${i}`).join('\r\n'));
    screen.repaint(snapshot);
    screen.repaintWhenReady(screenWithoutScrollback(snapshot, COLS, ROWS)); // a reconnect
    screen.repaintWhenReady(screenWithoutScrollback(snapshot, COLS, ROWS)); // a status line removed
    await waitFor(async () => (await allLines(out, term)).includes('remote 11'), { what: 'the repaints' });
    const lines = await allLines(out, term);
    expect(lines.filter((l) => l === 'mine 1')).toHaveLength(1);
    expect(lines.filter((l) => l === 'remote 0')).toHaveLength(1);
    expect(lines.filter((l) => l === 'remote 11')).toHaveLength(1);
  });

  it('writes output that arrives while a repaint is prepared after that repaint, in order', async () => {
    const written: string[] = [];
    const screen = new AttachScreen({ write: (text: string) => written.push(text) });
    let ready!: (text: string) => void;
    screen.repaint('first');
    screen.repaintWhenReady(new Promise((resolve) => (ready = resolve)));
    screen.output('after one', () => undefined);
    screen.output('after two', () => undefined);
    expect(written.join('')).not.toContain('after');
    ready('second');
    await waitFor(() => written.some((w) => w.includes('after two')), { what: 'the held output' });
    const tail = written.slice(-3);
    expect(tail[0]).toMatch(/second$/);
    expect(tail.slice(1)).toEqual(['after one', 'after two']);
  });

  it('resets the modes the remote program left set before a repaint: a snapshot sets again only those it still has', async () => {
    const { out, term } = localTerminalWithHistory();
    const screen = new AttachScreen(out);
    screen.output('\x1b[?1000h\x1b[?2004h\x1b[?1h\x1b[3;5r\x1b[4 q', () => undefined); // vim, before it quit while the link was down
    screen.repaint('$ ');
    await out.pending();
    expect([term.modes.mouseTrackingMode, term.modes.bracketedPasteMode, term.modes.applicationCursorKeysMode]).toEqual(['none', false, false]);
  });

  it("keeps the user's scrollback through a remote `clear` (ED 3), its sequence cut between two chunks of output", async () => {
    const { out, term } = localTerminalWithHistory();
    await write(term, Array.from({ length: 30 }, (_, i) => `mine ${i}`).join('\r\n'));
    const screen = new AttachScreen(out);
    screen.output('\x1b[H\x1b[2J\x1b[', () => undefined);
    screen.output('3J$ ', () => undefined);
    const lines = await allLines(out, term);
    expect(lines[0]).toBe('mine 0');
    expect(lines.filter((l) => l === '$ ')).toHaveLength(1);
  });

  it('fits every notice in one row of the terminal, the cut shown, no stray bracket on the next row', async () => {
    const { out, settled } = localTerminal();
    const screen = new AttachScreen(out);
    screen.notice(`link down (liveness: no pong within 2000ms); reconnecting, keys are held until it is back`);
    const shown = (await settled()).lines.filter((l) => l !== '');
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatch(/^\[termwire: link down \(liveness: .*…\]$/);
    expect(shown[0]!.length).toBe(COLS - 1);
  });

  it("draws a notice over a painted canvas on the status line: the remote's output goes on where its cursor was", async () => {
    const { out, settled } = localTerminal();
    const screen = new AttachScreen(out, undefined, () => undefined);
    screen.begin();
    screen.repaint('$ ');
    screen.output('ech', () => undefined);
    screen.notice('link down (closed)');
    screen.output('o hi', () => undefined);
    const { lines, cursor } = await settled();
    expect(lines[0]).toBe('$ echo hi');
    expect(lines.slice(1, ROWS - 1).every((l) => l === '')).toBe(true);
    expect(lines[ROWS - 1]).toBe('[termwire: link down (closed)]');
    expect(cursor).toEqual({ x: 9, y: 0 });
  });

  it('puts the newest notice first on the status line, so a cut takes the oldest news, and replaces a retry notice with the next', async () => {
    const { out, settled } = localTerminal();
    const screen = new AttachScreen(out, undefined, () => undefined);
    screen.begin();
    screen.repaint('$ ');
    screen.status('no answer for 1.5 s; keys typed now wait');
    screen.notice('link down (liveness)');
    expect((await settled()).lines[ROWS - 1]).toBe('[termwire: link down (liveness); no a…]');
    screen.retryNotice('retry in 0.5 s');
    screen.retryNotice('retry in 1.0 s');
    expect((await settled()).lines[ROWS - 1]).toBe('[termwire: retry in 1.0 s; link down …]');
  });

  it('draws the status line on the bottom row of the screen whatever the program set: a scroll region with origin mode, insert mode, line drawing', async () => {
    const { out, settled, term } = localTerminalWithModes();
    const screen = new AttachScreen(out, undefined, () => undefined);
    screen.begin();
    screen.repaint('');
    screen.output(`keep\x1b[${ROWS};1Hbottom-row-text\x1b[2;4r\x1b[?6h\x1b[4h\x1b(0\x1b[2;3H`, () => undefined);
    screen.status('link back');
    screen.output('q', () => undefined);
    const { lines, cursor } = await settled();
    expect(lines[ROWS - 1]).toBe('[termwire: link back]');
    expect(lines[0]).toBe('keep');
    // The program's cursor, region, origin mode, insert mode and character set are as it left them: its q is a line.
    expect(lines[2]).toBe('  ─');
    expect(cursor).toEqual({ x: 3, y: 2 });
    expect([term.modes.originMode, term.modes.insertMode]).toEqual([true, true]);
  });

  it("draws nothing of the remote once attach is ending: a repaint still being prepared and later output stay off the user's screen", async () => {
    const written: string[] = [];
    const screen = new AttachScreen({ write: (text: string) => written.push(text) }, undefined, () => undefined);
    let ready!: (text: string) => void;
    screen.repaintWhenReady(new Promise((resolve) => (ready = resolve)));
    screen.dispose(); // detached: the user's screen is back
    let delivered = 0;
    screen.output('late output', () => delivered++);
    ready('remote screen');
    await waitFor(() => delivered === 1, { what: 'the held output let go' });
    screen.notice('detached');
    expect(written.join('')).not.toMatch(/remote screen|late output/);
    expect(written.at(-1)).toContain('detached');
  });
});

const write = (term: InstanceType<typeof Terminal>, text: string) => new Promise<void>((resolve) => term.write(text, resolve));

/** A real terminal whose modes the test reads, with the same `settled` as localTerminal. */
function localTerminalWithModes() {
  const { out, settled } = localTerminal();
  return { out, settled, term: (out as unknown as { term: InstanceType<typeof Terminal> }).term };
}

/** The person's terminal with scrollback, written in order. */
function localTerminalWithHistory() {
  const term = new Terminal({ cols: COLS, rows: ROWS, scrollback: 100, allowProposedApi: true });
  let pending = Promise.resolve();
  const out = { rows: ROWS, columns: COLS, pending: () => pending, write: (text: string) => (pending = pending.then(() => write(term, text))) };
  return { out, term };
}

async function allLines(out: { pending(): Promise<void> }, term: InstanceType<typeof Terminal>): Promise<string[]> {
  await out.pending();
  const buffer = term.buffer.active;
  return Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)!.translateToString(true));
}

/** The host's snapshot of a terminal that printed `text`: its scrollback, then its screen. */
async function remoteSnapshot(text: string): Promise<string> {
  const remote = screenTerminals.take(COLS, ROWS, 100);
  await new Promise<void>((resolve) => remote.term.write(text, resolve));
  const snapshot = serializeScreen(remote);
  screenTerminals.give(remote);
  return snapshot;
}
