import { DeliveryUsageError } from './notices.js';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Splits text into pieces of at most `maxBytes` UTF-8 bytes, never inside a
 * code point (nor between the halves of a surrogate pair), so each is a valid Input payload.
 */
export function splitPaste(text: string, maxBytes: number): string[] {
  if (maxBytes < 4) throw new DeliveryUsageError('BAD_CHUNK_SIZE', `chunk size ${maxBytes} < 4 cannot hold every code point`);
  const bytes = utf8.encode(text);
  if (bytes.length <= maxBytes) return text.length === 0 ? [] : [text];
  const pieces: string[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(bytes.length, start + maxBytes);
    while (end < bytes.length && end > start && (bytes[end]! & 0xc0) === 0x80) end--;
    pieces.push(utf8Decoder.decode(bytes.subarray(start, end)));
    start = end;
  }
  return pieces;
}

export function utf8Length(text: string): number {
  // Fast path for ASCII keystrokes, the common case.
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  return ascii ? text.length : utf8.encode(text).length;
}
