import type { PooledTerminal } from './terminal-pool.js';
import type { XtermAttributes, XtermExtendedAttrs } from './xterm-internals.js';

/**
 * Everything a program's later output can depend on, read from xterm
 * (its private fields included, as the tests of a repaint must): every cell
 * of both buffers' visible rows (with `scrollback`, the normal buffer's
 * scrollback rows too), the cursors, the scroll regions, the pen, the modes;
 * with `saved`, what each buffer's DECSC (or `CSI ? 1049 h`) saved.
 * The repaint tests compare it, and the gate compares two hosts' snapshots by
 * the screens they draw. Links are named by their data and by the order they first
 * appear in, so two screens compare equal only if the same cells share a
 * link, whatever numbers each terminal gave its links.
 */
export function screenState({ term }: Pick<PooledTerminal, 'term'>, options: { readonly scrollback?: boolean; readonly saved?: boolean } = {}): unknown {
  const core = (term as unknown as { _core: Core })._core;
  const linkNames = new Map<number, string>();
  const link = (urlId: number) => {
    if (!urlId) return '';
    if (!linkNames.has(urlId)) {
      const data = core._oscLinkService.getLinkData(urlId);
      linkNames.set(urlId, `#${linkNames.size} ${JSON.stringify(data ?? 'unknown link')}`);
    }
    return linkNames.get(urlId)!;
  };
  const attributes = (a: Attributes, extended: XtermExtendedAttrs | undefined) => ({
    flags: [a.isBold(), a.isDim(), a.isItalic(), a.isUnderline(), a.isBlink(), a.isInverse(), a.isInvisible(), a.isStrikethrough(), a.isOverline()].map(Boolean).join(),
    fg: [a.getFgColorMode(), a.getFgColor()].join(),
    bg: [a.getBgColorMode(), a.getBgColor()].join(),
    // The raw style bits: xterm reports any linked cell's underline as dashed. (The raw colour bits are not compared: a palette colour keeps the
    // bits of an RGB one set before it, which nothing reads.)
    // SGR 59's default colour reads as RGB white in xterm 6 (every colour bit set); a repaint gives the default it means, as a real terminal would.
    // A default underline colour reads as mode 0 and the foreground's colour.
    underline: [
      a.getUnderlineStyle(),
      afterSgr59(extended) ? 0 : a.getUnderlineColorMode(),
      afterSgr59(extended) ? a.getFgColor() : a.getUnderlineColor(),
      ((extended?._ext ?? 0) >>> 26) & 7,
    ].join(),
    link: link(extended?.urlId ?? 0),
  });
  const visibleCells = (buffer: typeof term.buffer.active) => {
    const rows: unknown[] = [];
    const first = options.scrollback ? -buffer.baseY : 0;
    for (let row = first; row < term.rows; row++) {
      const line = buffer.getLine(buffer.baseY + row);
      const cells: unknown[] = [];
      for (let col = 0; col < term.cols; col++) {
        const cell = line?.getCell(col) as unknown as (Attributes & { getChars(): string; getWidth(): number }) | undefined;
        if (!cell) continue;
        cells.push({ col, chars: cell.getChars(), width: cell.getWidth(), ...attributes(cell, cell.hasExtendedAttrs() ? cell.extended : undefined) });
      }
      rows.push({ row, wrapped: line?.isWrapped, cells });
    }
    return rows;
  };
  const buffer = (which: 'normal' | 'alternate') => {
    const api = term.buffer[which];
    const internal = which === 'normal' ? core.buffers.normal : core.buffers.alt;
    // What DECSC and `CSI ? 1049 h` saved comes back at DECRC or when the program leaves the alternate screen (the shell's pen after vim).
    const saved = options.saved ? { saved: [internal.savedX, internal.savedY, internal.savedCurAttrData ? attributes(internal.savedCurAttrData, internal.savedCurAttrData.extended) : null] } : {};
    return { cursor: [api.cursorX, api.cursorY], baseY: api.baseY, region: [internal.scrollTop, internal.scrollBottom], rows: visibleCells(api), ...saved };
  };
  const pen = core._inputHandler._curAttrData;
  return {
    active: term.buffer.active.type,
    normal: buffer('normal'),
    alternate: buffer('alternate'),
    pen: attributes(pen, pen.extended),
    modes: term.modes,
    decPrivateModes: core.coreService.decPrivateModes,
    ansiModes: core.coreService.modes,
    cursorHidden: core.coreService.isCursorHidden,
    mouse: [core.coreMouseService.activeProtocol, core.coreMouseService.activeEncoding],
  };
}

const afterSgr59 = (extended: XtermExtendedAttrs | undefined) => ((extended?._ext ?? 0) & 0x3ffffff) === 0x3ffffff;

/** A cell or the pen, as the state reads it: the shared attributes, and the underline's whole story. */
interface Attributes extends XtermAttributes {
  hasExtendedAttrs(): number;
  getUnderlineStyle(): number;
  getUnderlineColorMode(): number;
  getUnderlineColor(): number;
}

interface InternalBuffer {
  scrollTop: number;
  scrollBottom: number;
  savedX?: number;
  savedY?: number;
  savedCurAttrData?: Attributes;
}

interface Core {
  buffers: { normal: InternalBuffer; alt: InternalBuffer };
  _inputHandler: { _curAttrData: Attributes };
  _oscLinkService: { getLinkData(urlId: number): unknown };
  coreService: { decPrivateModes: unknown; modes: unknown; isCursorHidden: boolean };
  coreMouseService: { activeProtocol: string; activeEncoding: string };
}
