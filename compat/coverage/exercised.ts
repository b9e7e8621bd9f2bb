import { errorKey, fieldName, flagKey } from '../../src/manifest/surface.js';
import type { PairingRecording, RecordedFrame } from '../recording.js';
import { publishedFields } from '../rules/dynamic/field-publishing.js';
import { isObject, isStandIn } from '../rules/dynamic/frame-slots.js';

/** `Error` payloads are "CODE: message"; a host's BAD_FRAME carries the decoder's code next ("BAD_FRAME: SCHEMA_MISMATCH: ..."). */
const ERROR_CODE = /^([A-Z][A-Z0-9_]*): (?:([A-Z][A-Z0-9_]*): )?/;

/** The payload bytes of a recorded frame, from its raw capture: independent of either build's decoder. */
const payloadBytes = (f: RecordedFrame) => Buffer.from(f.rawHex.slice(32), 'hex');

/** The surface keys one recorded frame exercises. */
export function keysOfFrame(f: RecordedFrame): string[] {
  if (f.opcode < 0 || f.opcodeName.startsWith('unknown(')) return [];
  const keys = [`opcode:${f.opcodeName}`];
  if (f.opcodeName === 'InputAck') {
    const bytes = payloadBytes(f);
    keys.push(flagKey('InputAck', bytes.length === 0 ? null : bytes[0]!));
  }
  if (f.opcodeName === 'Error' && typeof f.payload === 'string') {
    const m = ERROR_CODE.exec(f.payload);
    if (m) keys.push(errorKey('host', m[1]!), ...(m[1] === 'BAD_FRAME' && m[2] ? [errorKey('decoder', m[2])] : []));
  }
  if (f.refusedBy) keys.push(errorKey('decoder', f.refusedBy.code));
  if (isObject(f.payload) && !isStandIn(f.payload)) {
    // Metadata is a union keyed by `type`: its fields are named per event type, as the surface names them.
    const variant = f.opcodeName === 'Metadata' && typeof f.payload.type === 'string' ? `[type=${f.payload.type}]` : '';
    if (variant) keys.push(`event:${f.payload.type as string}`);
    for (const path of publishedFields(f.payload).keys()) {
      if (variant && path === 'type') continue;
      keys.push(`field:${fieldName(f.opcodeName, variant ? `${variant}.${path}` : path)}`);
    }
  }
  return keys;
}

/** Every surface key a pairing exercised: its frames, and the capabilities its subscribe negotiated. */
export function exercisedKeys(rec: PairingRecording): Set<string> {
  const keys = new Set<string>();
  // A dropped frame never reached its reader: it proves nothing about the other version.
  for (const f of rec.frames) if (f.fault !== 'dropped') for (const k of keysOfFrame(f)) keys.add(k);
  for (const [name, version] of Object.entries(rec.negotiated ?? {})) if ((version ?? 0) >= 1) keys.add(`capability:${name}`);
  return keys;
}
