/**
 * `npm run bench -- parse-work`: what ten bytes of a counted CSI sequence
 * cost the screen worker, with the clamp (src/screen/parse-work-clamp.ts)
 * and without it, side by side, against the same bytes of plain text. The
 * counts are 999,999: 2,147,483,647 without the clamp does not finish.
 */
import { clampParseWork } from '../../src/screen/parse-work-clamp.js';
import { screenTerminals } from '../../src/screen/terminal-pool.js';
import type { Row } from './lib/row.js';

export const name = 'parse-work';

const ATTACKS = ['y\x1b[999999b', 'y\x1b[999999S', 'y\x1b[999999L', 'y\x1b[999999Z'];

async function parseMs(data: string, clamped: boolean): Promise<number> {
  const pooled = screenTerminals.take(80, 24, 1000);
  const clamp = clamped ? clampParseWork(pooled.term) : undefined;
  // Warmed up on the same sequence with a count of 1, so the figure is the count's cost alone.
  await new Promise<void>((resolve) => pooled.term.write(data.replace(/\d+/, '1'), resolve));
  const started = performance.now();
  await new Promise<void>((resolve) => pooled.term.write(data, resolve));
  const ms = performance.now() - started;
  clamp?.dispose();
  pooled.term.dispose();
  return ms;
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const attack of ATTACKS) {
    const plain = await parseMs('y'.repeat(attack.length), true);
    const without = await parseMs(attack, false);
    const withClamp = await parseMs(attack, true);
    const label = JSON.stringify(attack).replace('\\u001b', 'ESC');
    rows.push({ section: name, name: `${label} at 80x24, clamped`, value: withClamp, unit: 'ms', ratio: without / withClamp, baseline: 'unclamped', note: `unclamped ${without.toFixed(1)} ms, plain text of the same length ${plain.toFixed(2)} ms` });
  }
  return rows;
}
