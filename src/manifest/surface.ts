import type { ManifestCapability, ManifestOpcode, SurfaceEntry } from './manifest-schema.js';
import { schemaFields } from './schema-fields.js';

type Direction = ManifestOpcode['direction'];
const BOTH: Direction[] = ['clientToHost', 'hostToClient'];

/** `SnapshotStart.source`, `Metadata[type=subscribed].inputLedgerId`: the name a field has in keys and findings. */
export function fieldName(opcode: string, path: string): string {
  return path.startsWith('[') ? `${opcode}${path}` : `${opcode}.${path}`;
}

/** The `[type=x]` a Metadata variant path starts with, if any. */
const eventTypeOf = (path: string) => /^\[type=([^\]]+)\]/.exec(path)?.[1];

/** A capability that names this field in what it gates (`Subscribe.inputSessionId`, `subscribed.inputLedgerId`). */
function fieldGate(opcode: ManifestOpcode, path: string, capabilities: Readonly<Record<string, ManifestCapability>>): string | null {
  if (opcode.gatedBy) return opcode.gatedBy;
  const event = eventTypeOf(path);
  const names = [fieldName(opcode.name, path), ...(event ? [`${event}.${path.replace(/^\[[^\]]+\]\.?/, '')}`] : [])];
  return Object.entries(capabilities).find(([, c]) => c.gatesFields.some((f) => names.includes(f)))?.[0] ?? null;
}

/**
 * The part of a surface any manifest can give, old ones included: opcodes,
 * every payload field with its type (from the JSON Schemas), Metadata event
 * types (the union's variants keyed by a literal `type`) and capabilities.
 */
export function schemaSurface(opcodes: readonly ManifestOpcode[], capabilities: Readonly<Record<string, ManifestCapability>>): SurfaceEntry[] {
  const out: SurfaceEntry[] = [];
  for (const o of opcodes) {
    if (o.retired) continue;
    const directions = [o.direction];
    out.push({ kind: 'opcode', key: `opcode:${o.name}`, directions, code: o.code, payloadKind: o.payloadKind, gatedBy: o.gatedBy });
    const fields = [...schemaFields(o.schema).values()];
    for (const f of fields) {
      // A variant without a literal type is the catch-all for events this build does not know, not an entry.
      if (f.path.includes('[variant#')) continue;
      const event = eventTypeOf(f.path);
      if (event && f.path === `[type=${event}]`) {
        const own = fields.filter((x) => x.parent === f.path && x.path !== `${f.path}.type`).map((x) => x.path.slice(f.path.length + 1));
        out.push({ kind: 'event', key: `event:${event}`, directions, type: event, fields: own });
        continue;
      }
      if (event && f.path === `[type=${event}].type`) continue;
      out.push({
        kind: 'field',
        key: `field:${fieldName(o.name, f.path)}`,
        directions,
        opcode: o.name,
        path: f.path,
        type: f.type,
        optional: !f.required,
        gatedBy: fieldGate(o, f.path, capabilities),
        ...(f.volatile ? { volatile: f.volatile } : {}),
      });
    }
  }
  for (const [name, c] of Object.entries(capabilities)) {
    // Advertised in Subscribe, echoed in `subscribed`: a capability crosses both ways.
    out.push({ kind: 'capability', key: `capability:${name}`, directions: BOTH, since: c.since, gatesOpcodes: [...c.gatesOpcodes], gatesFields: [...c.gatesFields] });
  }
  return out;
}

/** Error-code keys: host codes travel in Error frames as `error:CODE`; decoder codes are `error:decoder.CODE`. */
export function errorKey(source: 'host' | 'decoder', code: string): string {
  return source === 'host' ? `error:${code}` : `error:decoder.${code}`;
}

/** `flag:InputAck.1`; the no-payload value is `flag:InputAck.absent`. */
export function flagKey(opcode: string, value: number | null): string {
  return `flag:${opcode}.${value ?? 'absent'}`;
}
