import type { HeadlessTerminal } from './terminal-pool.js';

/**
 * The private corners of @xterm/headless 6 that a snapshot reads and the
 * serializer addon leaves out. Every member is optional and every reader
 * checks it, so a newer xterm that renames one degrades to the addon's text.
 */

/** A cell's or the pen's extended attributes (xterm's ExtendedAttrs). */
export interface XtermExtendedAttrs {
  /** Colour mode bits and colour, as the fg and bg words hold theirs. */
  readonly underlineColor?: number;
  /** The OSC 8 link, numbered by the terminal's link service; 0 for none. */
  readonly urlId?: number;
  /** The raw word: its underline style bits are the program's even where `underlineStyle` reports a link's dashed look. */
  readonly _ext?: number;
}

/** A cell (xterm's CellData, which the public getCell returns) or the pen (AttributeData): the methods both share. */
export interface XtermAttributes {
  readonly extended?: XtermExtendedAttrs;
  hasExtendedAttrs?(): number;
  getUnderlineStyle?(): number;
  isUnderline(): number;
  isBold(): number;
  isDim(): number;
  isItalic(): number;
  isBlink(): number;
  isInverse(): number;
  isInvisible(): number;
  isStrikethrough(): number;
  isOverline(): number;
  getFgColorMode(): number;
  getFgColor(): number;
  getBgColorMode(): number;
  getBgColor(): number;
}

/** One of xterm's two buffers, as its core holds it: cursor and scroll region are zero-based viewport rows. */
export interface XtermBuffer {
  readonly x?: number;
  readonly y?: number;
  readonly scrollTop?: number;
  readonly scrollBottom?: number;
}

export interface XtermLinkData {
  readonly id?: string;
  readonly uri: string;
}

/** A CSI sequence's parameters as xterm's handlers read them (its Params). */
export interface XtermParams {
  readonly params: Int32Array;
  readonly length: number;
}

/** xterm's InputHandler: the pen, and the CSI handlers that parse-work-clamp.ts calls with a clamped count. */
export type XtermInputHandler = { _curAttrData?: XtermAttributes } & Partial<Record<string, unknown>>;

/** A registered link: the markers of the lines holding it; it is forgotten when the last is disposed. */
export interface XtermLinkEntry {
  readonly lines?: Array<{ dispose(): void }>;
  /** Set for a link opened with an id: its key in _entriesWithId. */
  readonly key?: string;
}

/** xterm's OscLinkService: every OSC 8 link the screen has registered, oldest first. */
export interface XtermLinkService {
  getLinkData?(urlId: number): XtermLinkData | undefined;
  readonly _dataByLinkId?: Map<number, XtermLinkEntry>;
  readonly _entriesWithId?: Map<string, XtermLinkEntry>;
}

interface XtermCore {
  coreService?: {
    isCursorHidden?: boolean;
    /** DECSCUSR's shape and blink; undefined until a program sets them (and after `CSI 0 SP q`). */
    decPrivateModes?: { cursorStyle?: string; cursorBlink?: boolean };
  };
  coreMouseService?: { activeEncoding?: string };
  buffers?: { normal?: XtermBuffer; alt?: XtermBuffer };
  _inputHandler?: XtermInputHandler;
  _oscLinkService?: XtermLinkService;
}

export const xtermCore = (term: HeadlessTerminal): XtermCore | undefined => (term as unknown as { _core?: XtermCore })._core;

/** The attributes the next character printed gets. */
export const xtermPen = (term: HeadlessTerminal): XtermAttributes | undefined => xtermCore(term)?._inputHandler?._curAttrData;

export function xtermLinkData(term: HeadlessTerminal, urlId: number): XtermLinkData | undefined {
  const data = xtermCore(term)?._oscLinkService?.getLinkData?.(urlId);
  return typeof data?.uri === 'string' ? data : undefined;
}

/**
 * xterm's InputHandler.parse, what its write buffer calls for each write:
 * parses `data` at once, or returns a promise when a handler paused it; the
 * same `data` is then passed again with the promise's result to go on.
 */
export type XtermParse = (data: string | Uint8Array, promiseResult?: boolean) => void | Promise<boolean>;

export function xtermParser(term: HeadlessTerminal): XtermParse | undefined {
  const handler = xtermCore(term)?._inputHandler;
  const parse = handler?.['parse'];
  return typeof parse === 'function' ? (parse.bind(handler) as XtermParse) : undefined;
}

/** xterm's parser, as its InputHandler holds it: where a parse left off. */
interface XtermParserState {
  readonly _parser?: { readonly currentState?: number; readonly _parseStack?: { readonly state?: number } };
}

/**
 * Whether plain text may be left unparsed on this terminal when it would only
 * scroll out (scrolled-past.ts): its parser is between sequences and not
 * paused (text after `ESC [ 3` is a sequence's end, not text), and the active
 * buffer's scroll region is the whole screen (lines scrolled out of a region
 * leave no scrollback and the rows outside it stay). False when either cannot
 * be read.
 */
export function xtermSkipsScrolledPast(term: HeadlessTerminal): boolean {
  const core = xtermCore(term);
  const parser = (core?._inputHandler as XtermParserState | undefined)?._parser;
  if (parser?.currentState !== 0 || parser._parseStack?.state !== 0) return false;
  const buffer = term.buffer.active.type === 'alternate' ? core?.buffers?.alt : core?.buffers?.normal;
  return buffer?.scrollTop === 0 && buffer.scrollBottom === term.rows - 1;
}

/** Whether the pen is what SGR 0 leaves: no colour, no attribute, nothing extended, and no OSC 8 link open (which SGR 0 closes). False when it cannot be read. */
export function xtermPenIsDefault(term: HeadlessTerminal): boolean {
  const pen = xtermPen(term) as (XtermAttributes & { readonly fg?: number; readonly bg?: number }) | undefined;
  // Extended attributes count even where the colour words do not flag them: a later SGR 58 would bring them back.
  return pen?.fg === 0 && pen.bg === 0 && (pen.extended?.urlId ?? 0) === 0 && (pen.extended?._ext ?? 0) === 0;
}
