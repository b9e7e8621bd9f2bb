import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertSeeded } from '../../test/helpers/seeded-property.js';
import { checkJsonLimits, DEFAULT_JSON_LIMITS, type JsonLimits, structureWithinJsonLimits } from './json-limits.js';

const utf8 = new TextEncoder();
const RUNS = 5_000;

/** Text made mostly of what the scan reacts to, so limits are broken often and strings hide brackets. */
const jsonish = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'a', ' ', 'é'), maxLength: 24 });
const smallLimits = fc.record({ maxJsonBytes: fc.constant(DEFAULT_JSON_LIMITS.maxJsonBytes), maxJsonTokens: fc.nat(12), maxJsonDepth: fc.nat(4) });

describe('the bracket-count bound that lets decodeJson skip the exact scan', () => {
  it('never says "within limits" for text the exact scan refuses', () => {
    let decidedByBound = 0;
    assertSeeded(
      fc.property(jsonish, smallLimits, (text, limits: JsonLimits) => {
        if (!structureWithinJsonLimits(text, limits)) return;
        decidedByBound++;
        expect(checkJsonLimits(utf8.encode(text), limits)).toBeUndefined();
      }),
      0,
      RUNS,
    );
    // Not vacuous: the bound decides a good share of the cases.
    expect(decidedByBound).toBeGreaterThan(RUNS / 10);
  });

  it('is too loose to decide, not wrong, when brackets sit in strings or tokens reach the limit', () => {
    const limits = { ...DEFAULT_JSON_LIMITS, maxJsonTokens: 4, maxJsonDepth: 1 };
    expect(structureWithinJsonLimits('{"a":"[["}', limits)).toBe(false);
    expect(checkJsonLimits(utf8.encode('{"a":"[["}'), limits)).toBeUndefined();
    expect(structureWithinJsonLimits('"aaa"', limits)).toBe(false);
    expect(checkJsonLimits(utf8.encode('"aaa"'), limits)).toBeUndefined();
    expect(structureWithinJsonLimits('"aa"', limits)).toBe(true);
  });
});
