import { createHash } from 'node:crypto';
import type { PairingRecording } from '../recording.js';
import { assembledSnapshots } from '../rules/dynamic/snapshot-content.js';
import { screenState } from '../../src/screen/screen-state.js';
import { screenTerminals } from '../../src/screen/terminal-pool.js';

/** Scrollback of the terminal a snapshot is drawn on: more than any host keeps (its maxScrollbackLines), so none is cut. */
const RENDER_SCROLLBACK = 10_000;

/** The screen one snapshot text draws on a fresh terminal of its size, as a digest of every cell, scrollback included, the cursor, pen and modes, and what was saved for later (the pen a program gets back when it leaves the alternate screen). */
export function renderedScreen(text: string, cols: number, rows: number): Promise<string> {
  const pooled = screenTerminals.take(cols, rows, RENDER_SCROLLBACK);
  return new Promise((resolve) => {
    pooled.term.write(text, () => {
      const digest = createHash('sha256').update(JSON.stringify(screenState(pooled, { scrollback: true, saved: true }))).digest('hex');
      screenTerminals.give(pooled);
      resolve(digest);
    });
  });
}

/** The screen each host snapshot of a recording draws, in the order they crossed (PairingRecording.snapshotScreens). */
export async function renderSnapshots(recording: Pick<PairingRecording, 'frames'>): Promise<string[]> {
  const screens: string[] = [];
  for (const s of assembledSnapshots(recording as PairingRecording)) screens.push(await renderedScreen(s.text, s.cols, s.rows));
  return screens;
}
