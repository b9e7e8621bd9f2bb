import { createHash } from 'node:crypto';
import type { PairingRecording } from '../recording.js';
import { assembledSnapshots } from '../rules/dynamic/snapshot-content.js';
import { screenState } from '../../src/screen/screen-state.js';
import { screenTerminals } from '../../src/screen/terminal-pool.js';

/** Scrollback of the terminal a snapshot is drawn on: more than any host keeps (its maxScrollbackLines), so none is cut. */
const RENDER_SCROLLBACK = 10_000;

interface CellShape {
  readonly col: number;
  readonly chars: string;
  readonly width: number;
  readonly flags: string;
  readonly fg: string;
  readonly bg: string;
  readonly underline: string;
  readonly link: string;
}
/** Every field screenState gives a cell: a field it gains must be digested too, or two screens that differ there would compare equal. */
const CELL_FIELDS = ['col', 'chars', 'width', 'flags', 'fg', 'bg', 'underline', 'link'];
interface BufferShape {
  readonly rows: ReadonlyArray<{ readonly row: number; readonly wrapped?: boolean; readonly cells: readonly CellShape[] }>;
  readonly [field: string]: unknown;
}
type ScreenStateShape = { readonly normal: BufferShape; readonly alternate: BufferShape; readonly [field: string]: unknown };

/**
 * A digest of everything screenState reads, hashed as it is walked, a cell's
 * attributes only where they differ from the cell before it. The whole state
 * as one JSON text is megabytes for a snapshot with scrollback, and hashing it
 * held the gate's event loop (where the recording proxy forwards pongs) for
 * about 1.7 s of CPU per run.
 */
export function screenDigest(state: ScreenStateShape): string {
  const hash = createHash('sha256');
  const { normal, alternate, ...rest } = state;
  const sample = normal.rows.find((r) => r.cells.length)?.cells[0];
  if (sample && Object.keys(sample).join() !== CELL_FIELDS.join()) throw new Error(`screenDigest reads cells as ${CELL_FIELDS.join()}; screenState now gives ${Object.keys(sample).join()}`);
  hash.update(JSON.stringify(rest));
  for (const { rows, ...head } of [normal, alternate]) {
    hash.update(`\x1e${JSON.stringify(head)}`);
    for (const { row, wrapped, cells } of rows) {
      let pen = '';
      let line = `\x1d${row} ${wrapped === true}`;
      for (const cell of cells) {
        const { col, chars, width } = cell;
        const attrs = `${cell.flags};${cell.fg};${cell.bg};${cell.underline};${cell.link}`;
        // A unit separator before each cell: chars may be empty (the cell after a wide character).
        line += `\x1f${col} ${width} ${attrs === pen ? '' : attrs}\x1c${chars}`;
        pen = attrs;
      }
      hash.update(line);
    }
  }
  return hash.digest('hex');
}

/** The screen one snapshot text draws on a fresh terminal of its size, as a digest of every cell, scrollback included, the cursor, pen and modes, and what was saved for later (the pen a program gets back when it leaves the alternate screen). */
export function renderedScreen(text: string, cols: number, rows: number): Promise<string> {
  const pooled = screenTerminals.take(cols, rows, RENDER_SCROLLBACK);
  return new Promise((resolve) => {
    pooled.term.write(text, () => {
      const digest = screenDigest(screenState(pooled, { scrollback: true, saved: true }) as ScreenStateShape);
      screenTerminals.give(pooled);
      resolve(digest);
    });
  });
}

/**
 * Screens already drawn by this process, by size and text. Drawing is a pure
 * function of the two, and a skew's old client is mostly sent the snapshots
 * old × old was: drawing each again cost the gate about 1.3 s of CPU per
 * old-client pairing. The oldest go first past the bound.
 */
const drawn = new Map<string, string>();
export const DRAWN_SCREENS_KEPT = 4096;

const drawnKey = (text: string, cols: number, rows: number) => `${cols}x${rows} ${createHash('sha256').update(text).digest('hex')}`;

function keepDrawn(key: string, digest: string): void {
  drawn.set(key, digest);
  if (drawn.size > DRAWN_SCREENS_KEPT) drawn.delete(drawn.keys().next().value!);
}

/** Screens a recording already drew (a reference read from the cache, whose key names this drawing code), so they are not drawn again. */
export function rememberDrawnScreens(recording: Pick<PairingRecording, 'frames' | 'snapshotScreens'>): void {
  const screens = recording.snapshotScreens;
  if (!screens) return;
  for (const [i, s] of assembledSnapshots(recording as PairingRecording).entries()) {
    if (screens[i] !== undefined) keepDrawn(drawnKey(s.text, s.cols, s.rows), screens[i]);
  }
}

/** The screen each host snapshot of a recording draws, in the order they crossed (PairingRecording.snapshotScreens). */
export async function renderSnapshots(recording: Pick<PairingRecording, 'frames'>): Promise<string[]> {
  const screens: string[] = [];
  for (const s of assembledSnapshots(recording as PairingRecording)) {
    const key = drawnKey(s.text, s.cols, s.rows);
    const digest = drawn.get(key) ?? (await renderedScreen(s.text, s.cols, s.rows));
    keepDrawn(key, digest);
    screens.push(digest);
  }
  return screens;
}
