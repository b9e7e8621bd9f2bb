import { WireError } from './errors.js';

export interface JsonLimits {
  /** Largest JSON payload accepted, in bytes. Default 8 MiB. */
  readonly maxJsonBytes: number;
  /** Most structural tokens ({ } [ ] , :) accepted. Default 256 Ki. */
  readonly maxJsonTokens: number;
  /** Deepest nesting of objects and arrays accepted. Default 32. */
  readonly maxJsonDepth: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = Object.freeze({
  maxJsonBytes: 8 * 1024 * 1024,
  maxJsonTokens: 256 * 1024,
  maxJsonDepth: 32,
});

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPENING_BRACKETS = ['{', '['] as const;

/**
 * Checks size, token count and nesting on the raw bytes before JSON.parse runs,
 * so a nesting bomb or a token flood costs one linear scan, not a parse tree.
 * Returns the first limit broken, or undefined.
 */
export function checkJsonLimits(bytes: Uint8Array, limits: JsonLimits = DEFAULT_JSON_LIMITS): WireError | undefined {
  return checkJsonSize(bytes, limits) ?? scanJsonStructure(bytes, limits);
}

export function checkJsonSize(bytes: Uint8Array, limits: JsonLimits = DEFAULT_JSON_LIMITS): WireError | undefined {
  if (bytes.length <= limits.maxJsonBytes) return undefined;
  return new WireError('PAYLOAD_TOO_LARGE', `JSON payload ${bytes.length} bytes > maxJsonBytes ${limits.maxJsonBytes}`, { limit: limits.maxJsonBytes, actual: bytes.length });
}

/**
 * True when the decoded text cannot break the token or depth limit, whatever
 * its structure: a structural token is one character, so tokens cannot
 * outnumber the characters, and nesting cannot go deeper than the number of
 * opening brackets, in strings or not. Counting brackets with the native
 * indexOf costs a fraction of the exact scan, which runs only when this bound
 * is too loose to decide.
 */
export function structureWithinJsonLimits(text: string, limits: JsonLimits = DEFAULT_JSON_LIMITS): boolean {
  if (text.length > limits.maxJsonTokens) return false;
  let openings = 0;
  for (const bracket of OPENING_BRACKETS) {
    for (let at = text.indexOf(bracket); at >= 0; at = text.indexOf(bracket, at + 1)) {
      if (++openings > limits.maxJsonDepth) return false;
    }
  }
  return true;
}

/** The exact token count and nesting depth, outside strings, stopping at the first limit broken. */
function scanJsonStructure(bytes: Uint8Array, limits: JsonLimits): WireError | undefined {
  let depth = 0;
  let tokens = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
      continue;
    }
    switch (b) {
      case QUOTE:
        inString = true;
        continue;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (++depth > limits.maxJsonDepth) {
          return new WireError('JSON_TOO_DEEP', `JSON nesting ${depth} > maxJsonDepth ${limits.maxJsonDepth}`, { limit: limits.maxJsonDepth, actual: depth });
        }
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        depth--;
        break;
      case COMMA:
      case COLON:
        break;
      default:
        continue;
    }
    if (++tokens > limits.maxJsonTokens) {
      return new WireError('JSON_TOO_MANY_TOKENS', `JSON has more than maxJsonTokens ${limits.maxJsonTokens} structural tokens`, { limit: limits.maxJsonTokens, actual: tokens });
    }
  }
  return undefined;
}
