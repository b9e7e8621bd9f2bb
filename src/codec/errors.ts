/**
 * Errors a peer can cause. Each code is permanent once shipped; `since` is the
 * wire version it came in. Programming errors (encoding a bad frame) use
 * FrameEncodeError instead, so a caller can tell "the peer sent garbage" from
 * "we have a bug".
 */
export const WIRE_ERROR_CODES = {
  FRAME_TOO_SHORT: { since: 1, meaning: 'fewer than the 16 header bytes' },
  BAD_KIND: { since: 1, meaning: 'byte 0 is not the terminal-stream kind 0x74' },
  BAD_VERSION: { since: 1, meaning: 'byte 1 is a wire version this build does not speak' },
  UNKNOWN_OPCODE: { since: 1, meaning: 'an opcode this build does not know; number, stream and seq are reported' },
  SEQ_OUT_OF_RANGE: { since: 1, meaning: 'the seq halves encode a value above 2^53-1' },
  FRAME_TOO_LARGE: { since: 1, meaning: 'a byte-stream length prefix above maxFrameBytes; skipped unread' },
  PAYLOAD_TOO_LARGE: { since: 1, meaning: 'a JSON payload above maxJsonBytes' },
  JSON_TOO_DEEP: { since: 1, meaning: 'JSON nesting above maxJsonDepth' },
  JSON_TOO_MANY_TOKENS: { since: 1, meaning: 'more structural JSON tokens than maxJsonTokens' },
  BAD_JSON: { since: 1, meaning: 'the payload is not valid JSON' },
  SCHEMA_MISMATCH: { since: 1, meaning: 'valid JSON that does not match the opcode schema' },
  INVALID_UTF8: { since: 1, meaning: 'a text or JSON payload that is not well-formed UTF-8' },
} as const;

export type WireErrorCode = keyof typeof WIRE_ERROR_CODES;

export interface WireErrorDetails {
  readonly opcode?: number;
  readonly streamId?: number;
  readonly seq?: number;
  readonly limit?: number;
  readonly actual?: number;
}

/** A peer's mistake: malformed, oversized or unknown input. Data, not a crash. */
export class WireError extends Error implements WireErrorDetails {
  override readonly name = 'WireError';
  readonly code: WireErrorCode;
  readonly opcode?: number;
  readonly streamId?: number;
  readonly seq?: number;
  readonly limit?: number;
  readonly actual?: number;

  constructor(code: WireErrorCode, message: string, details: WireErrorDetails = {}) {
    super(`${code}: ${message}`);
    this.code = code;
    Object.assign(this, details);
  }
}

export const ENCODE_ERROR_CODES = {
  SEQ_OUT_OF_RANGE: 'seq must be an integer from 0 to 2^53-1',
  STREAM_ID_OUT_OF_RANGE: 'streamId must be an integer from 0 to 2^32-1',
  OPCODE_OUT_OF_RANGE: 'opcode must be an integer from 0 to 255',
  BUFFER_TOO_SMALL: 'the target buffer cannot hold the frame',
  PAYLOAD_INVALID: 'the payload does not match the opcode schema',
  PAYLOAD_TOO_LARGE: 'the payload is above the limit a peer would accept',
} as const;

export type FrameEncodeErrorCode = keyof typeof ENCODE_ERROR_CODES;

/** Our own mistake: refusing to put a frame on the wire that a peer would misread. */
export class FrameEncodeError extends Error {
  override readonly name = 'FrameEncodeError';
  constructor(readonly code: FrameEncodeErrorCode, message: string) {
    super(`${code}: ${message}`);
  }
}

export type Result<T, E = WireError> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };
