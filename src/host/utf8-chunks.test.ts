import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertSeeded } from '../../test/helpers/seeded-property.js';
import { splitUtf8 } from './utf8-chunks.js';

const strict = new TextDecoder('utf-8', { fatal: true });

describe('splitUtf8', () => {
  it('cuts at code point boundaries into pieces no larger than the limit that rebuild the input', () => {
    assertSeeded(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 4, max: 64 }), (text, max) => {
        const bytes = new TextEncoder().encode(text);
        const pieces = splitUtf8(bytes, max);
        for (const piece of pieces) {
          expect(piece.length).toBeGreaterThan(0);
          expect(piece.length).toBeLessThanOrEqual(max);
          strict.decode(piece); // throws if a piece starts or ends inside a code point
        }
        expect(pieces.map((p) => strict.decode(p)).join('')).toBe(text);
      }),
      701,
      500,
    );
  });

  it('refuses a limit that cannot hold a 4-byte code point', () => {
    expect(() => splitUtf8(new Uint8Array(8), 3)).toThrow(/maxBytes 3 < 4/);
  });
});
