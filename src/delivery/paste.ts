import { DeliveryUsageError } from './notices.js';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** One piece of a paste and its length in UTF-8 bytes, which the split already knows. */
export interface PastePiece {
  readonly text: string;
  readonly bytes: number;
}

/**
 * Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a
 * code point (nor between the halves of a surrogate pair), so each is a valid Input payload.
 */
export function splitPaste(text: string, maxBytes: number): string[] {
  return pastePieces(text, maxBytes).map((piece) => piece.text);
}

/** splitPaste, with each piece's byte length: the journal budgets bytes without counting them again. */
export function pastePieces(text: string, maxBytes: number): PastePiece[] {
  if (maxBytes < 4) throw new DeliveryUsageError('BAD_CHUNK_SIZE', `chunk size ${maxBytes} < 4 cannot hold every code point`);
  const bytes = utf8.encode(text);
  // Each non-ASCII UTF-16 unit takes two bytes or more: as many bytes as units means ASCII, cut as it is.
  if (bytes.length === text.length) return asciiPieces(text, maxBytes);
  if (bytes.length <= maxBytes) return text.length === 0 ? [] : [{ text, bytes: bytes.length }];
  const pieces: PastePiece[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(bytes.length, start + maxBytes);
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    pieces.push({ text: utf8Decoder.decode(bytes.subarray(start, end)), bytes: end - start });
    start = end;
  }
  return pieces;
}

/** ASCII, the common paste, has a byte per character: the string is cut as it is, with no decoding of each piece. */
function asciiPieces(text: string, maxBytes: number): PastePiece[] {
  const pieces: PastePiece[] = [];
  for (let start = 0; start < text.length; start += maxBytes) {
    const piece = text.slice(start, start + maxBytes);
    pieces.push({ text: piece, bytes: piece.length });
  }
  return pieces;
}

const NON_ASCII = /[^\x00-\x7f]/;

export function utf8Length(text: string): number {
  // ASCII, the common case, has one byte per character; the regex scans a pasted block several times faster than a charCodeAt loop.
  return NON_ASCII.test(text) ? utf8.encode(text).length : text.length;
}
