import { z } from 'zod';

/**
 * The wire manifest a build reports about itself (`termwire manifest`). The
 * gate reads each build's manifest from that build's own dist, so this schema
 * is also how a newer gate validates an older build's output: add fields as
 * optional, bump MANIFEST_FORMAT only when a reader must refuse older output.
 */
export const MANIFEST_FORMAT = 1;

const capabilitySet = z.record(z.string(), z.number().int().min(0));

export const manifestOpcodeSchema = z.object({
  code: z.number().int().min(0).max(255),
  name: z.string(),
  direction: z.enum(['hostToClient', 'clientToHost']),
  payloadKind: z.enum(['text', 'empty', 'flag', 'json']),
  gatedBy: z.string().nullable(),
  since: z.number().int(),
  retired: z.boolean(),
  /** JSON Schema (draft 2020-12, input side: optional fields are not required); null unless payloadKind is json. */
  schema: z.record(z.string(), z.unknown()).nullable(),
});

export const manifestCapabilitySchema = z.object({
  since: z.number().int(),
  gatesOpcodes: z.array(z.string()),
  gatesFields: z.array(z.string()),
  purpose: z.string(),
});

/** A per-peer downgrade: peers without `capability` get `opcode` in its older shape. */
export const manifestProjectionSchema = z.object({ name: z.string(), opcode: z.string(), capability: z.string(), purpose: z.string() });

export const wireManifestSchema = z.object({
  manifestFormat: z.literal(MANIFEST_FORMAT),
  packageVersion: z.string(),
  wireVersion: z.number().int(),
  peerProtocol: z.number().int(),
  opcodes: z.array(manifestOpcodeSchema),
  capabilities: z.record(z.string(), manifestCapabilitySchema),
  advertised: z.object({ host: capabilitySet, client: capabilitySet }),
  /** Absent from builds before projections were applied. */
  projections: z.array(manifestProjectionSchema).optional(),
});

export type WireManifest = z.infer<typeof wireManifestSchema>;
export type ManifestOpcode = z.infer<typeof manifestOpcodeSchema>;
export type ManifestCapability = z.infer<typeof manifestCapabilitySchema>;
