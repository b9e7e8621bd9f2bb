/**
 * Flattens a payload's JSON Schema (as zod's toJSONSchema writes it) into the
 * fields a reader sees: `client.id`, and for unions of objects keyed by a
 * literal `type`, `[type=subscribed].capabilities`. Records (additionalProperties
 * maps) are leaves: their keys are data, not fields. Works on any build's
 * manifest, so the gate can read fields and types from a baseline that
 * predates the manifest's surface list.
 */
export interface SchemaField {
  readonly path: string;
  readonly required: boolean;
  /** The enclosing object's path; '' for the payload root. */
  readonly parent: string;
  /** JSON types joined with `|`, sorted: `integer|null`; `record` for a map whose keys are data. */
  readonly type: string;
  /** Why its value varies from run to run, when the schema declares it volatile. */
  readonly volatile?: string;
}

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

function variantKey(variant: Schema, index: number): string {
  const props = isSchema(variant.properties) ? variant.properties : {};
  for (const [name, prop] of Object.entries(props)) {
    if (isSchema(prop) && (typeof prop.const === 'string' || typeof prop.const === 'number')) return `[${name}=${String(prop.const)}]`;
  }
  return `[variant#${index}]`;
}

/** The JSON type(s) a schema node admits, as one comparable string. */
export function schemaType(schema: Schema): string {
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants) return [...new Set(variants.filter(isSchema).flatMap((v) => schemaType(v).split('|')))].sort().join('|');
  if (schema.type === 'object' && !isSchema(schema.properties) && isSchema(schema.additionalProperties)) return 'record';
  if (Array.isArray(schema.type)) return [...(schema.type as string[])].sort().join('|');
  if (typeof schema.type === 'string') return schema.type;
  return 'unknown';
}

function walk(schema: Schema, prefix: string, out: Map<string, SchemaField>): void {
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants && variants.every((v) => isSchema(v) && v.type === 'object')) {
    variants.forEach((v, i) => {
      const key = `${prefix}${variantKey(v as Schema, i)}`;
      out.set(key, { path: key, required: true, parent: prefix, type: 'object' });
      walk(v as Schema, key, out);
    });
    return;
  }
  if (!isSchema(schema.properties)) return;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const [name, sub] of Object.entries(schema.properties)) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const node = isSchema(sub) ? sub : {};
    const volatile = typeof node.volatile === 'string' ? { volatile: node.volatile } : {};
    out.set(path, { path, required: required.has(name), parent: prefix, type: schemaType(node), ...volatile });
    if (isSchema(sub)) walk(sub, path, out);
  }
}

export function schemaFields(schema: Schema | null): Map<string, SchemaField> {
  const out = new Map<string, SchemaField>();
  if (schema) walk(schema, '', out);
  return out;
}
