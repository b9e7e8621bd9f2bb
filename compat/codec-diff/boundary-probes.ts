import { encodeJson, jsonOf, type MutatedFrame, setAt } from './mutate.js';

/** What of a build's JSON schema (its manifest) the probes read: objects, unions by `type`, records, and bounds. */
export interface BoundedSchema {
  readonly properties?: Readonly<Record<string, BoundedSchema>>;
  readonly anyOf?: readonly BoundedSchema[];
  readonly const?: unknown;
  readonly additionalProperties?: BoundedSchema | boolean;
  readonly type?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
}

type Path = ReadonlyArray<string | number>;

/** The branch of a union (Metadata's events) that describes `value`, by its `type` constant; the schema itself otherwise. */
export function branchFor(schema: BoundedSchema | undefined, value: Record<string, unknown>): BoundedSchema | undefined {
  if (!schema?.anyOf) return schema;
  return schema.anyOf.find((b) => b.properties?.type?.const === value.type);
}

/** Values on both sides of each bound a field schema declares: a number one past its range, a text one character too long. */
function boundaryValues(schema: BoundedSchema): unknown[] {
  const values: unknown[] = [];
  if (schema.type === 'integer' || schema.type === 'number') {
    for (const bound of [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum]) if (bound !== undefined) values.push(bound - 1, bound, bound + 1);
  }
  if (schema.type === 'string') {
    for (const bound of [schema.minLength, schema.maxLength]) if (bound !== undefined) for (const n of [bound - 1, bound, bound + 1]) if (n >= 0) values.push('x'.repeat(n));
  }
  return values;
}

/** Each field path under an object of `value` with its schema in this build: declared properties (present or not) and a record's entries. */
function boundedFields(value: unknown, schema: BoundedSchema | undefined, at: Path = []): Array<{ path: Path; schema: BoundedSchema }> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const object = value as Record<string, unknown>;
  const branch = branchFor(schema, object);
  if (!branch) return [];
  const declared = Object.entries(branch.properties ?? {}).flatMap(([key, field]) => [{ path: [...at, key], schema: field }, ...boundedFields(object[key], field, [...at, key])]);
  const record = typeof branch.additionalProperties === 'object' ? branch.additionalProperties : undefined;
  const entries = record ? [...Object.keys(object).filter((k) => !(k in (branch.properties ?? {}))), 'probe'].map((key) => ({ path: [...at, key], schema: record })) : [];
  return [...declared, ...entries];
}

/**
 * Frames that put every bounded field of each seed's payload just inside and
 * just outside the bounds of both builds' schemas, once per opcode and event
 * type (on its first JSON seed). A range or length narrowed or widened between the builds
 * is read differently at exactly these values, where fixed edge values only
 * catch it when one happens to fall between the old bound and the new.
 */
export function boundaryProbes(seeds: readonly Uint8Array[], schemasOf: (opcode: number) => ReadonlyArray<BoundedSchema | undefined>): MutatedFrame[] {
  const probed = new Set<string>();
  const out: MutatedFrame[] = [];
  seeds.forEach((seed, seedIndex) => {
    const json = jsonOf(seed);
    const opcode = seed[2]!;
    // A union (Metadata's events) has a schema per `type`: each is probed on its first seed.
    const kind = `${opcode} ${String((json as { type?: unknown } | undefined)?.type)}`;
    if (json === undefined || probed.has(kind)) return;
    probed.add(kind);
    const made = new Set<string>();
    for (const schema of schemasOf(opcode)) {
      for (const field of boundedFields(json, schema)) {
        for (const value of boundaryValues(field.schema)) {
          const bytes = encodeJson(seed, setAt(json, field.path, value));
          const key = Buffer.from(bytes).toString('latin1');
          if (made.has(key)) continue;
          made.add(key);
          out.push({ bytes, seedIndex, mutation: `JSON ${field.path.join('.')} = ${JSON.stringify(value).slice(0, 20)}${typeof value === 'string' ? ` (${value.length} characters)` : ''} (a schema bound)` });
        }
      }
    }
  });
  return out;
}
