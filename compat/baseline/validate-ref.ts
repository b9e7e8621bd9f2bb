import { CompatError } from '../errors.js';

/** Limits on a user-supplied ref, checked before it reaches git. */
export const REF_LIMITS = { maxLength: 200, maxLastN: 20 } as const;

// Shell metacharacters and glob characters: git never needs them in a ref we accept,
// and refusing them keeps a hostile --against from meaning anything but a name.
const FORBIDDEN = /[\s;&|`$<>(){}\\'"*?![\]\x00-\x1f\x7f]/;

/** Returns the ref unchanged if it is safe to pass to git as one argument; throws BAD_REF otherwise. */
export function validateRef(ref: string): string {
  const fail = (why: string): never => {
    throw new CompatError('BAD_REF', `--against ${JSON.stringify(ref)} refused: ${why}`);
  };
  if (ref.length === 0) fail('empty');
  if (ref.length > REF_LIMITS.maxLength) fail(`${ref.length} characters; a ref may have at most ${REF_LIMITS.maxLength}`);
  if (ref.startsWith('-')) fail('a leading "-" would be read as an option');
  if (ref.includes('..')) fail('".." (a range) is not one commit');
  const bad = FORBIDDEN.exec(ref);
  if (bad) fail(`character ${JSON.stringify(bad[0])} is not allowed`);
  return ref;
}

export type AgainstSpec = { kind: 'latest' } | { kind: 'last'; count: number } | { kind: 'ref'; ref: string };

/** Parses `latest`, `last:N` (1..maxLastN) or a ref. */
export function parseAgainst(value: string): AgainstSpec {
  if (value === 'latest') return { kind: 'latest' };
  const last = /^last:(.*)$/.exec(value);
  if (last) {
    const n = Number(last[1]);
    if (!Number.isInteger(n) || n < 1 || n > REF_LIMITS.maxLastN) {
      throw new CompatError('BAD_REF', `--against ${value}: N must be a whole number from 1 to ${REF_LIMITS.maxLastN} (the most releases one run compares against), got ${JSON.stringify(last[1])}`);
    }
    return { kind: 'last', count: n };
  }
  return { kind: 'ref', ref: validateRef(value) };
}
