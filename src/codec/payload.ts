import type { z } from 'zod';
import { compiledSchema } from './compiled-schema.js';
import { decodeInputAckFlag, encodeInputAckFlag, type InputAckStatus } from './input-ack-flags.js';
import { FrameEncodeError, type Result, WireError } from './errors.js';
import type { Frame } from './header.js';
import { checkJsonLimits, checkJsonSize, DEFAULT_JSON_LIMITS, type JsonLimits, structureWithinJsonLimits } from './json-limits.js';
import { OPCODES, type OpcodeName, opcodeSpec } from './opcodes.js';


type Spec<N extends OpcodeName> = (typeof OPCODES)[N];
/** The decoded payload type of each opcode, derived from the table. */
export type PayloadOf<N extends OpcodeName> = Spec<N>['payload'] extends { kind: 'json'; schema: infer S extends z.ZodType }
  ? z.infer<S>
  : Spec<N>['payload'] extends { kind: 'text' }
    ? string
    : Spec<N>['payload'] extends { kind: 'flag' }
      ? InputAckStatus
      : undefined;

/** The payload a sender passes: JSON values before validation, text, a flag status, or nothing. */
export type PayloadInput<N extends OpcodeName> = Spec<N>['payload'] extends { kind: 'json'; schema: infer S extends z.ZodType }
  ? z.input<S>
  : PayloadOf<N>;

// Text rule: payloads are decoded strictly. Invalid UTF-8 is refused with
// INVALID_UTF8 rather than replaced: our encoders only write whole code
// points, so a bad byte means a framing or peer bug that replacement would hide.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8 = new TextEncoder();

export function decodeText(bytes: Uint8Array, frame?: Pick<Frame, 'opcode' | 'streamId' | 'seq'>): Result<string> {
  try {
    return { ok: true, value: strictUtf8.decode(bytes) };
  } catch {
    return { ok: false, error: new WireError('INVALID_UTF8', `payload of ${bytes.length} bytes is not well-formed UTF-8`, { ...frame }) };
  }
}

export function decodeJson<S extends z.ZodType>(bytes: Uint8Array, schema: S, limits: JsonLimits = DEFAULT_JSON_LIMITS, frame?: Pick<Frame, 'opcode' | 'streamId' | 'seq'>): Result<z.infer<S>> {
  const sizeError = checkJsonSize(bytes, limits);
  if (sizeError) return { ok: false, error: Object.assign(sizeError, frame) };
  const textResult = decodeText(bytes, frame);
  // The exact structure scan runs when the cheap bound cannot decide, and on
  // malformed UTF-8 too, so a bomb is reported as a bomb whatever its bytes.
  if (!textResult.ok || !structureWithinJsonLimits(textResult.value, limits)) {
    const limitError = checkJsonLimits(bytes, limits);
    if (limitError) return { ok: false, error: Object.assign(limitError, frame) };
  }
  if (!textResult.ok) return textResult;
  let raw: unknown;
  try {
    raw = JSON.parse(textResult.value);
  } catch (e) {
    return { ok: false, error: new WireError('BAD_JSON', `payload is not JSON: ${(e as Error).message}`, { ...frame }) };
  }
  const parsed = compiledSchema(schema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(root)';
    return { ok: false, error: new WireError('SCHEMA_MISMATCH', `${where}: ${issue?.message ?? 'invalid'}`, { ...frame }) };
  }
  return { ok: true, value: parsed.data };
}

/**
 * Decodes a frame's payload by its opcode's entry in the table. Empty-payload
 * opcodes ignore any bytes, so a later wire version may give them a payload.
 */
export function decodePayload(frame: Frame, limits: JsonLimits = DEFAULT_JSON_LIMITS): Result<unknown> {
  const spec = opcodeSpec(frame.opcode);
  const where = { opcode: frame.opcode, streamId: frame.streamId, seq: frame.seq };
  if (!spec) return { ok: false, error: new WireError('UNKNOWN_OPCODE', `opcode ${frame.opcode} is not known to this build`, where) };
  switch (spec.payload.kind) {
    case 'text':
      return decodeText(frame.payload, where);
    case 'json':
      return decodeJson(frame.payload, spec.payload.schema, limits, where);
    case 'flag':
      return { ok: true, value: decodeInputAckFlag(frame.payload) };
    case 'empty':
      return { ok: true, value: undefined };
  }
}

/** Typed variant: the caller names the opcode it expects. */
export function decodePayloadAs<N extends OpcodeName>(name: N, frame: Frame, limits?: JsonLimits): Result<PayloadOf<N>> {
  return decodePayload(frame, limits) as Result<PayloadOf<N>>;
}

/** Encodes a payload for an opcode, validating JSON against the schema a peer will use. */
export function encodePayload<N extends OpcodeName>(name: N, value: PayloadInput<N>, limits: JsonLimits = DEFAULT_JSON_LIMITS): Uint8Array {
  const spec = OPCODES[name].payload as (typeof OPCODES)[OpcodeName]['payload'];
  switch (spec.kind) {
    case 'text':
      return utf8.encode(value as string);
    case 'empty':
      return new Uint8Array(0);
    case 'flag':
      return encodeInputAckFlag(value as InputAckStatus);
    case 'json': {
      const parsed = compiledSchema(spec.schema).safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new FrameEncodeError('PAYLOAD_INVALID', `${name} ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
      }
      const bytes = utf8.encode(JSON.stringify(value));
      if (bytes.length > limits.maxJsonBytes) {
        throw new FrameEncodeError('PAYLOAD_TOO_LARGE', `${name} JSON ${bytes.length} bytes > maxJsonBytes ${limits.maxJsonBytes}`);
      }
      return bytes;
    }
  }
}
