import type { HeadlessTerminal } from './terminal-pool.js';
import { type XtermParams, xtermCore } from './xterm-internals.js';

/**
 * A CSI sequence whose count makes xterm loop once per unit, whatever the
 * screen's size: ten bytes of `y ESC[999999b` cost 400 ms at 80x24, and
 * `ESC[99999999S` did not finish in 30 s, all on the one screen worker every
 * terminal shares. `method` is xterm's handler, called with the count clamped
 * to `limit`.
 */
interface CountedSequence {
  readonly final: string;
  readonly name: string;
  readonly method: string;
  /** The largest count that can change the screen; past it the count is cut to it. */
  readonly limit: (term: HeadlessTerminal) => number;
}

const rows = (term: HeadlessTerminal) => term.rows;
const cols = (term: HeadlessTerminal) => term.cols;

/**
 * The counts clamped. Scrolls, line inserts and deletes past the screen's rows
 * and tab moves past its columns leave the screen as the clamped count does, so
 * these are exact. REP is clamped as tmux clamps it (input.c, INPUT_CSI_REP):
 * to the rest of the cursor's line, where xterm would wrap and scroll on; a
 * program using terminfo's `rep` never asks for more (ncurses repeats within a
 * line).
 */
export const COUNTED_SEQUENCES: readonly CountedSequence[] = [
  { final: 'b', name: 'REP', method: 'repeatPrecedingCharacter', limit: (term) => Math.max(0, term.cols - cursorX(term)) },
  { final: 'S', name: 'SU', method: 'scrollUp', limit: rows },
  { final: 'T', name: 'SD', method: 'scrollDown', limit: rows },
  { final: 'L', name: 'IL', method: 'insertLines', limit: rows },
  { final: 'M', name: 'DL', method: 'deleteLines', limit: rows },
  { final: 'I', name: 'CHT', method: 'cursorForwardTab', limit: cols },
  { final: 'Z', name: 'CBT', method: 'cursorBackwardTab', limit: cols },
];

/** The cursor's column as xterm holds it: `cols` while a wrap is pending, which the public cursorX hides. */
function cursorX(term: HeadlessTerminal): number {
  const buffers = xtermCore(term)?.buffers;
  const buffer = term.buffer.active.type === 'alternate' ? buffers?.alt : buffers?.normal;
  return buffer?.x ?? term.buffer.active.cursorX;
}

/**
 * Registers a CSI handler per counted sequence, ahead of xterm's own: a count
 * within its limit falls through to xterm untouched, a larger one is carried
 * out with the limit instead (a count of 0 left: nothing). Registered through
 * xterm's parser, so sequences split across writes are clamped like any other.
 * Should a newer xterm rename a handler, a clamped sequence is dropped rather
 * than run in full.
 */
export function clampParseWork(term: HeadlessTerminal): { dispose(): void } {
  const registrations = COUNTED_SEQUENCES.map((sequence) =>
    term.parser.registerCsiHandler({ final: sequence.final }, (params) => {
      // With sub-parameters (`CSI 99999999:1 S`) xterm still reads the first number as the count.
      const first = params[0];
      const count = Array.isArray(first) ? first[0] : first;
      if (typeof count !== 'number') return false;
      const limit = sequence.limit(term);
      if (count <= limit) return false;
      const handler = xtermCore(term)?._inputHandler;
      const method = handler?.[sequence.method];
      const clamped: XtermParams = { params: Int32Array.of(limit), length: 1 };
      if (limit > 0 && typeof method === 'function') method.call(handler, clamped);
      return true;
    }),
  );
  return { dispose: () => registrations.forEach((r) => r.dispose()) };
}
