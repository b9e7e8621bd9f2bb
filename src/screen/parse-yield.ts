import type { HeadlessTerminal } from './terminal-pool.js';

type Identifier = Parameters<HeadlessTerminal['parser']['registerCsiHandler']>[0];

/**
 * Sequences whose cost grows with the screen's size, not with their bytes:
 * measured at 1000x1000, an alternate screen switch costs 10 to 24 ms, ED 2
 * and DECALN 6 ms, RIS 11 ms, a scroll of the whole screen 20 to 40 ms, for a
 * handful of bytes each. 64 KiB of them is minutes of work.
 */
export const SIZE_BOUND_SEQUENCES: ReadonlyArray<{ readonly name: string; readonly kind: 'csi' | 'esc'; readonly id: Identifier }> = [
  { name: 'DECSET', kind: 'csi', id: { prefix: '?', final: 'h' } },
  { name: 'DECRST', kind: 'csi', id: { prefix: '?', final: 'l' } },
  { name: 'ED', kind: 'csi', id: { final: 'J' } },
  { name: 'SU', kind: 'csi', id: { final: 'S' } },
  { name: 'SD', kind: 'csi', id: { final: 'T' } },
  { name: 'IL', kind: 'csi', id: { final: 'L' } },
  { name: 'DL', kind: 'csi', id: { final: 'M' } },
  { name: 'RIS', kind: 'esc', id: { final: 'c' } },
  { name: 'DECALN', kind: 'esc', id: { intermediates: '#', final: '8' } },
];

/** A handler that hands the sequence on to the next (xterm's own), after a pause when `shouldPause` says so. */
const pausePoint = (shouldPause: () => boolean) => () => (shouldPause() ? Promise.resolve(false) : false);

/**
 * Makes every size-bound sequence a point where xterm may pause its parse.
 * xterm parses a write without a break, checking its 12 ms time slice only
 * between writes, so one write full of alternate screen switches held the one
 * screen worker (and every other terminal's snapshot) for as long as it took.
 * A handler that answers with a promise lets xterm check its slice there: past
 * it xterm goes on in a later task, after other screens and requests. The
 * sequence itself is then handled by the next handler, as before. The host's
 * screens pause only when their ParseScheduler slice is over (`shouldPause`):
 * a pause costs a promise, and programs print DECSET often.
 */
export function pauseAtSizeBoundSequences(term: HeadlessTerminal, shouldPause: () => boolean = () => true): { dispose(): void } {
  // xterm's parser takes promise-returning handlers (its typings for headless say only boolean).
  const handler = pausePoint(shouldPause) as unknown as () => boolean;
  const registrations = SIZE_BOUND_SEQUENCES.map(({ kind, id }) => (kind === 'csi' ? term.parser.registerCsiHandler(id, handler) : term.parser.registerEscHandler(id, handler)));
  return { dispose: () => registrations.forEach((r) => r.dispose()) };
}
