import type { XtermAttributes, XtermExtendedAttrs } from './xterm-internals.js';

// xterm's colour words: two mode bits above a palette index or an RGB value.
const COLOR_MODE_MASK = 0x3000000;
const COLOR_MODE_P16 = 0x1000000;
const COLOR_MODE_RGB = 0x3000000;
const COLOR_MASK = 0x3ffffff;
/**
 * What SGR 59 (default underline colour) leaves in xterm 6: every colour bit
 * set, which xterm reads as RGB white. It means the default colour, which a
 * reset gives: it is not counted as a colour set.
 */
const UNDERLINE_COLOR_AFTER_SGR59 = COLOR_MASK;
const UNDERLINE_STYLE_SHIFT = 26;
const UNDERLINE_SINGLE = 1;

/**
 * A cell's extended attributes, or undefined when it has none: a cell
 * without them can hold a stale object left by the last cell loaded into it.
 */
export const cellExtended = (cell: XtermAttributes): XtermExtendedAttrs | undefined => (cell.hasExtendedAttrs?.() ? cell.extended : undefined);

/** 0 for none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed. */
export function underlineStyleOf(attrs: XtermAttributes, extended: XtermExtendedAttrs | undefined): number {
  const style = attrs.getUnderlineStyle?.() ?? (attrs.isUnderline() ? UNDERLINE_SINGLE : 0);
  // xterm reports a linked cell's underline as dashed (how it draws links); the program's own style stays in the raw word.
  if (style === 0 || !extended?.urlId || typeof extended._ext !== 'number') return style;
  return (extended._ext >>> UNDERLINE_STYLE_SHIFT) & 7 || UNDERLINE_SINGLE;
}

/** Whether the underline colour is set (SGR 58), which the serializer never writes. */
export function hasUnderlineColor(extended: XtermExtendedAttrs | undefined): boolean {
  const word = (extended?.underlineColor ?? 0) & COLOR_MASK;
  return (word & COLOR_MODE_MASK) !== 0 && word !== UNDERLINE_COLOR_AFTER_SGR59;
}

/** What the serializer addon loses of these attributes: an underline style other than single, an underline colour, a link. */
export function hasLostAttributes(attrs: XtermAttributes, extended: XtermExtendedAttrs | undefined): boolean {
  return !!extended?.urlId || hasUnderlineColor(extended) || underlineStyleOf(attrs, extended) > UNDERLINE_SINGLE;
}

function color(mode: number, value: number, base: number, brightBase: number, extendedCode: number): string | undefined {
  if (mode === 0) return undefined;
  if (mode === COLOR_MODE_RGB) return `${extendedCode};2;${(value >>> 16) & 0xff};${(value >>> 8) & 0xff};${value & 0xff}`;
  // 16-colour SGRs and `38;5;N` land in different modes even for the same N; each is written the way it was set.
  if (mode === COLOR_MODE_P16) return `${value & 8 ? brightBase + (value & 7) : base + (value & 7)}`;
  return `${extendedCode};5;${value & 0xff}`;
}

function underlineColor(extended: XtermExtendedAttrs | undefined): string | undefined {
  if (!hasUnderlineColor(extended)) return undefined;
  const word = extended!.underlineColor!;
  if ((word & COLOR_MODE_MASK) === COLOR_MODE_RGB) return `58:2::${(word >>> 16) & 0xff}:${(word >>> 8) & 0xff}:${word & 0xff}`;
  return `58:5:${word & 0xff}`;
}

/**
 * One SGR that sets exactly these attributes whatever the pen was before:
 * a reset, then every attribute, the underline's style and colour included.
 * A reset does not end a link (OSC 8 is not an attribute SGR touches).
 */
export function fullSgr(attrs: XtermAttributes, extended: XtermExtendedAttrs | undefined): string {
  const parts = ['0'];
  if (attrs.isBold()) parts.push('1');
  if (attrs.isDim()) parts.push('2');
  if (attrs.isItalic()) parts.push('3');
  const underline = underlineStyleOf(attrs, extended);
  if (underline === UNDERLINE_SINGLE) parts.push('4');
  else if (underline > UNDERLINE_SINGLE) parts.push(`4:${underline}`);
  if (attrs.isBlink()) parts.push('5');
  if (attrs.isInverse()) parts.push('7');
  if (attrs.isInvisible()) parts.push('8');
  if (attrs.isStrikethrough()) parts.push('9');
  if (attrs.isOverline()) parts.push('53');
  for (const part of [
    color(attrs.getFgColorMode(), attrs.getFgColor(), 30, 90, 38),
    color(attrs.getBgColorMode(), attrs.getBgColor(), 40, 100, 48),
    underlineColor(extended),
  ]) {
    if (part) parts.push(part);
  }
  return `\x1b[${parts.join(';')}m`;
}
