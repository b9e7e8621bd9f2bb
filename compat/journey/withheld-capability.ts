import { HEADER_BYTES } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A client's Subscribe as a host that lacks `capability` would treat it: the
 * capability left out of what the client advertises, the header and every
 * other field as the client wrote them. Between the two, the link negotiates
 * without it: the host walks its path for a client that never asked, and the
 * client its path against a host that never offered, whichever builds they are.
 * Any other frame, or a Subscribe that does not parse, passes unchanged.
 */
export function withheldFromSubscribe(bytes: Uint8Array, capability: string): Uint8Array {
  if (bytes.length <= HEADER_BYTES || bytes[2] !== Op.Subscribe) return bytes;
  let payload: unknown;
  try {
    payload = JSON.parse(utf8.decode(bytes.subarray(HEADER_BYTES)));
  } catch {
    return bytes;
  }
  const capabilities = (payload as { capabilities?: unknown } | null)?.capabilities;
  if (typeof capabilities !== 'object' || capabilities === null || !(capability in capabilities)) return bytes;
  delete (capabilities as Record<string, unknown>)[capability];
  const rewritten = new TextEncoder().encode(JSON.stringify(payload));
  const out = new Uint8Array(HEADER_BYTES + rewritten.length);
  out.set(bytes.subarray(0, HEADER_BYTES));
  out.set(rewritten, HEADER_BYTES);
  return out;
}
