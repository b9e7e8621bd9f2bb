import { z } from 'zod';

const compiledBySchema = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema with zod's compiled fast path (z.compile: the same results and
 * the same issues, without the per-node dispatch of the runtime parser), built
 * once per schema on first use. The original stays as written, so the manifest
 * and the types still read the table's schemas.
 */
export function compiledSchema<S extends z.ZodType>(schema: S): S {
  let compiled = compiledBySchema.get(schema);
  if (!compiled) {
    compiled = z.compile(schema);
    compiledBySchema.set(schema, compiled);
  }
  return compiled as S;
}
