import serializeAddon from '@xterm/addon-serialize';
import type { PooledTerminal } from './terminal-pool.js';

/**
 * The serializer addon's text, taken a few rows at a time. The addon
 * serialises a buffer in one loop (BaseSerializeHandler.serialize): a
 * 1000x1000 screen coloured in every cell, 18 MB of text, held the screen
 * thread for 4.6 to 4.9 s. Here the addon still assembles its text and its
 * handler still writes every cell; only that loop is driven from outside, so
 * it can stop between rows and go on later. Its text is the addon's, byte for
 * byte (serialize-screen-sliced.test.ts). Like xterm-internals.ts, it reads
 * corners the addon does not publish, and every one is checked: an addon that
 * moved them is serialised whole, in one step, as before.
 */

/** xterm's IBufferCell, opaque here: the addon's handler reads it. */
type Cell = object;

interface AddonLine {
  readonly length: number;
  getCell(col: number, into: Cell): Cell | undefined;
}

/** The handler's StringSerializeHandler, as @xterm/addon-serialize 0.14 builds it: the steps its serialize() runs. */
interface AddonHandler {
  readonly _buffer: { getNullCell(): Cell; getLine(row: number): AddonLine | undefined };
  _beforeSerialize(rows: number, startRow: number, endRow: number): void;
  _nextCell(cell: Cell, oldCell: Cell, row: number, col: number): void;
  _rowEnd(row: number, isLastRow: boolean): void;
  _afterSerialize(): void;
  _serializeString(excludeFinalCursorPosition?: boolean): string;
}

interface AddonRange {
  readonly start: { readonly x: number; readonly y: number };
  readonly end: { readonly x: number; readonly y: number };
}

type HandlerSerialize = (this: unknown, range: AddonRange, excludeFinalCursorPosition?: boolean) => string;

/** Steps until `over()` says the slice is used (at least one); the text once done, undefined while there is more. */
export type SerializeStep = (over: () => boolean) => string | undefined;

const HANDLER_STEPS = ['_beforeSerialize', '_nextCell', '_rowEnd', '_afterSerialize', '_serializeString'] as const;

/** Stands in the addon's text for a buffer's: no escape sequence the addon writes holds a private-use character. */
const placeholder = (index: number) => `\uE000${index}\uE000`;
const PLACEHOLDER = /\uE000(\d+)\uE000/;

/** The prototype every handler of the addon shares (BaseSerializeHandler), found through the one it exports. */
function handlerBase(): { serialize: HandlerSerialize } | undefined {
  const exported = (serializeAddon as { HTMLSerializeHandler?: { prototype?: object } }).HTMLSerializeHandler?.prototype;
  const base: unknown = exported && Object.getPrototypeOf(exported);
  return base && typeof (base as { serialize?: unknown }).serialize === 'function' ? (base as { serialize: HandlerSerialize }) : undefined;
}

function isHandler(value: unknown): value is AddonHandler {
  const handler = value as Partial<Record<string, unknown>> | null;
  const buffer = handler?.['_buffer'] as Partial<Record<string, unknown>> | undefined;
  return HANDLER_STEPS.every((step) => typeof handler?.[step] === 'function') && typeof buffer?.['getNullCell'] === 'function' && typeof buffer['getLine'] === 'function';
}

/** One buffer's serialisation: BaseSerializeHandler.serialize (MIT, the xterm.js authors), its row loop resumable. */
class BufferRows {
  private row: number;
  private readonly cells: readonly [Cell, Cell];
  private oldCell: Cell;

  constructor(
    private readonly handler: AddonHandler,
    private readonly range: AddonRange,
    private readonly excludeFinalCursorPosition: boolean | undefined,
  ) {
    // Two cells to flip between the old and the new one.
    this.cells = [handler._buffer.getNullCell(), handler._buffer.getNullCell()];
    this.oldCell = this.cells[0];
    this.row = range.start.y;
    handler._beforeSerialize(range.end.y - range.start.y, range.start.y, range.end.y);
  }

  step(over: () => boolean): string | undefined {
    const { start, end } = this.range;
    while (this.row <= end.y) {
      const row = this.row++;
      const line = this.handler._buffer.getLine(row);
      if (line) {
        const last = row === end.y ? end.x : line.length;
        for (let col = row === start.y ? start.x : 0; col < last; col++) {
          const cell = line.getCell(col, this.oldCell === this.cells[0] ? this.cells[1] : this.cells[0]);
          if (!cell) continue; // the addon warns on the console and goes on
          this.handler._nextCell(cell, this.oldCell, row, col);
          this.oldCell = cell;
        }
      }
      this.handler._rowEnd(row, row === end.y);
      if (this.row <= end.y && over()) return undefined;
    }
    this.handler._afterSerialize();
    return this.handler._serializeString(this.excludeFinalCursorPosition);
  }
}

/**
 * The addon's serialize(), in steps: the addon runs once with its handlers'
 * loop taken out, which leaves its own text (modes, the switch to the
 * alternate screen) around a placeholder per buffer; each buffer's rows are
 * then serialised by its handler, a step at a time, into its place. The
 * terminal must not change until the last step: its owner holds its parse.
 */
export function addonSteps(pooled: PooledTerminal): SerializeStep {
  const base = handlerBase();
  if (!base) return () => pooled.serializer.serialize();
  const buffers: BufferRows[] = [];
  let valid = true;
  const original = base.serialize;
  base.serialize = function (this: unknown, range: AddonRange, excludeFinalCursorPosition?: boolean): string {
    if (!isHandler(this)) valid = false;
    else buffers.push(new BufferRows(this, range, excludeFinalCursorPosition));
    return placeholder(buffers.length - 1);
  };
  let template: string;
  try {
    template = pooled.serializer.serialize();
  } finally {
    base.serialize = original;
  }
  if (!valid) return () => pooled.serializer.serialize();
  const texts: string[] = [];
  return (over) => {
    for (;;) {
      const buffer = buffers[texts.length];
      if (!buffer) return template.split(PLACEHOLDER).map((piece, i) => (i % 2 === 0 ? piece : texts[Number(piece)])).join('');
      const text = buffer.step(over);
      if (text === undefined) return undefined;
      texts.push(text);
      if (texts.length < buffers.length && over()) return undefined;
    }
  };
}
