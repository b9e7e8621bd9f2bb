/**
 * Output that a screen would parse only to scroll it out of its scrollback:
 * in a flood of plain text (`cat` of a log), everything but the last screens
 * and scrollback's worth of lines. Skipping it leaves the screen exactly as
 * parsing it would, under these conditions, which the caller checks on the
 * terminal (xtermSkipsScrolledPast: the parser between sequences, the scroll
 * region the whole screen; xtermPenIsDefault) and this module on the bytes:
 *
 * - The skipped bytes and the ones after them are plain: printable
 *   characters, CR, LF, TAB and SGR sequences. Plain text changes no mode,
 *   no tab stop, no saved cursor and no title; only cells, the cursor, which
 *   lines scroll out, and the pen, which must be at the cut what it was where
 *   the skip starts (scrolledPastBytes).
 * - The skip ends just before a CR LF, so the cursor is in the first column
 *   after it either way; only its row can differ.
 * - At least `keepLineFeeds` line feeds of plain text follow the skip. With
 *   the scroll region the whole screen, rows of them bring the cursor to the
 *   bottom row from any row, and rows plus scrollback more scroll every line
 *   that was on the screen or in the scrollback before them out of it: what is
 *   left was printed by the text after the skip alone, in either case.
 * - At least one character is printed after the skip, so the character a
 *   later REP repeats is the same.
 */

const CR = 0x0d;
const LF = 0x0a;
const TAB = 0x09;

/** Line feeds of plain text that must follow a skip on a screen of `rows` with `scrollback` lines: see the module's comment. */
export const keepLineFeeds = (rows: number, scrollback: number): number => 2 * rows + scrollback + 2;

/** How the scan reads each byte value. */
const enum Kind {
  Printed,
  LineFeed,
  /** CR and TAB: plain, printing nothing. */
  Moves,
  /** 0x80 to 0x9F: a UTF-8 continuation byte, or after C2 a C1 control. */
  LowContinuation,
  /** ESC: plain only as the start of an SGR sequence (CSI … m), which changes the pen and nothing else. */
  Escape,
  NotPlain,
}

const ESC = 0x1b;
const KINDS = (() => {
  const kinds = new Uint8Array(256).fill(Kind.Printed);
  for (let byte = 0; byte < 0x20; byte++) kinds[byte] = Kind.NotPlain;
  kinds[0x7f] = Kind.NotPlain;
  for (let byte = 0x80; byte < 0xa0; byte++) kinds[byte] = Kind.LowContinuation;
  kinds[LF] = Kind.LineFeed;
  kinds[CR] = Kind.Moves;
  kinds[TAB] = Kind.Moves;
  kinds[ESC] = Kind.Escape;
  return kinds;
})();

/**
 * What a look at queued output found: bytes that may be dropped unparsed,
 * how long the plain run from the start was, and whether it ran to the end
 * of what was queued (`open`: more output may go on with it; an SGR sequence
 * cut by that end counts as plain).
 */
export interface ScrolledPastLook {
  readonly skip: number;
  readonly plain: number;
  readonly open: boolean;
}

/** The line feeds a look remembers, reused from look to look: where each is, whether a CR came right before it with the pen as at the run's start, and how many characters were printed before it. */
const ring = { size: 0, feedAt: new Float64Array(0), cutOk: new Uint8Array(0), printedBefore: new Float64Array(0) };

/**
 * How many bytes from `offset` in the first chunk may be dropped unparsed
 * (`skip`, 0 when none): the plain run from there, across the chunks, is cut
 * just before the last CR LF that has `keep` line feeds of plain text after
 * it, with a character printed before the last of them. A chunk of text (a
 * string) ends the run, as does any byte that is not plain; `plain` is the
 * run's length, so the caller knows when another look can find more.
 *
 * SGR sequences (colours, a `ls --color` or a build log), also split
 * between two chunks, count as plain
 * where the pen at the cut is the pen at the start: none came before the cut,
 * or the last one before it reset the pen and the pen at the start was the
 * default (`penDefault`).
 *
 * It reads every byte of the run once, through a table, and keeps only the
 * last 2 × keep line feeds, in a ring: what it reads costs a small part of
 * what parsing it would.
 */
export function scrolledPastBytes(chunks: Iterable<string | Uint8Array>, offset: number, keep: number, penDefault = false): ScrolledPastLook {
  const size = 2 * keep;
  if (ring.size < size) Object.assign(ring, { size, feedAt: new Float64Array(size), cutOk: new Uint8Array(size), printedBefore: new Float64Array(size) });
  const { feedAt, cutOk, printedBefore } = ring;
  let feeds = 0;
  let printed = 0;
  let position = 0;
  let previous = 0;
  let penAsAtStart = true;
  // An SGR sequence under way, which may go on in the next chunk: 1 after its ESC, 2 in its parameters; where its ESC was, and whether its parameters so far reset the pen.
  let sgr = 0;
  let sgrAt = 0;
  let sgrParameters = 0;
  let sgrResets = true;
  let ended = false;
  let from = offset;
  run: for (const chunk of chunks) {
    if (typeof chunk === 'string') {
      ended = true;
      break;
    }
    const end = chunk.length;
    for (let at = from; at < end; at++) {
      const byte = chunk[at]!;
      if (sgr !== 0) {
        if (sgr === 1 && byte === 0x5b) sgr = 2;
        else if (sgr === 2 && byte >= 0x30 && byte <= 0x3b) {
          // Digits, ';' and ':': `CSI m` and `CSI 0 m` reset the pen.
          sgrResets = sgrParameters++ === 0 && byte === 0x30;
        } else if (sgr === 2 && byte === 0x6d) {
          penAsAtStart = (sgrParameters === 0 || sgrResets) && penDefault;
          sgr = 0;
        } else {
          // Another sequence (a private marker, an intermediate, another final): the run ends at its ESC.
          position = sgrAt;
          ended = true;
          break run;
        }
        previous = byte;
        continue;
      }
      const kind = KINDS[byte]!;
      if (kind === Kind.Printed) printed++;
      else if (kind === Kind.LineFeed) {
        const slot = feeds % size;
        feedAt[slot] = position + at - from;
        cutOk[slot] = previous === CR && penAsAtStart ? 1 : 0;
        printedBefore[slot] = printed;
        feeds++;
      } else if (kind === Kind.LowContinuation && previous !== 0xc2) printed++;
      else if (kind === Kind.Escape) {
        sgr = 1;
        sgrAt = position + at - from;
        sgrParameters = 0;
        sgrResets = true;
      } else if (kind !== Kind.Moves) {
        position += at - from;
        ended = true;
        break run;
      }
      previous = byte;
    }
    position += end - from;
    from = 0;
  }
  // Every chunk read to its end: the run goes on into what comes next; the plain text so far ends before a sequence cut by that end.
  const open = !ended;
  if (sgr !== 0) position = sgrAt;
  // The latest cut with `keep` line feeds from its own on: at most the one whose feed is the keep-th from the last.
  for (let feed = feeds - keep; feed >= 0 && feed > feeds - size; feed--) {
    const slot = feed % size;
    if (cutOk[slot] !== 1) continue;
    const lastKept = (feed + keep - 1) % size;
    const cut = feedAt[slot]! - 1;
    return { skip: printedBefore[lastKept]! > printedBefore[slot]! ? cut : 0, plain: position, open };
  }
  return { skip: 0, plain: position, open };
}
