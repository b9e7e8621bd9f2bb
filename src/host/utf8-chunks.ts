/** True for a UTF-8 continuation byte (10xxxxxx), which never starts a code point. */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * Splits UTF-8 bytes into views of at most `maxBytes`, never inside a code
 * point, so each piece decodes on its own. `maxBytes` must be at least 4.
 */
export function splitUtf8(bytes: Uint8Array, maxBytes: number): Uint8Array[] {
  if (maxBytes < 4) throw new RangeError(`maxBytes ${maxBytes} < 4 cannot hold every code point`);
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (bytes.length - start > maxBytes) {
    let end = start + maxBytes;
    while (end > start && isContinuation(bytes[end]!)) end--;
    pieces.push(bytes.subarray(start, end));
    start = end;
  }
  if (start < bytes.length) pieces.push(bytes.subarray(start));
  return pieces;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `text` cut to at most `maxBytes` of UTF-8, never inside a code point; unchanged when it fits. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: a string this short always fits, and skips the encode.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  return bytes.length <= maxBytes ? text : decoder.decode(splitUtf8(bytes, maxBytes)[0]);
}
