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

const directions = z.array(z.enum(['hostToClient', 'clientToHost'])).min(1);
const entry = <K extends string, S extends z.ZodRawShape>(kind: K, shape: S) =>
  z.object({
    kind: z.literal(kind),
    /** Stable across builds: `opcode:Output`, `field:SnapshotStart.source`, `event:title`, `flag:InputAck.1`, `error:NOT_SUBSCRIBED`, `capability:inputAck`. */
    key: z.string(),
    /** Which way the entry can travel; an entry that can only travel one way says so here. */
    directions,
    ...shape,
  });
const gatedBy = z.string().nullable();

/** One entry of a build's wire surface: everything a peer of another version can meet. */
export const surfaceEntrySchema = z.discriminatedUnion('kind', [
  entry('opcode', { code: z.number().int(), payloadKind: z.string(), gatedBy }),
  entry('field', { opcode: z.string(), path: z.string(), type: z.string(), optional: z.boolean(), gatedBy, volatile: z.string().optional() }),
  entry('event', { type: z.string(), fields: z.array(z.string()), since: z.number().int().optional() }),
  entry('flag', { opcode: z.string(), value: z.number().int().nullable(), status: z.string(), meaning: z.string(), since: z.number().int(), gatedBy }),
  entry('error', { code: z.string(), source: z.enum(['host', 'decoder']), meaning: z.string() }),
  entry('capability', { since: z.number().int(), gatesOpcodes: z.array(z.string()), gatesFields: z.array(z.string()) }),
]);
const promisedLimitSchema = z.object({ value: z.number(), floor: z.string() });

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
  /** The whole wire surface, from the build's tables. Absent from builds before it existed (v0.1.0). */
  surface: z.array(surfaceEntrySchema).optional(),
  /** Absent from builds before projections were applied. */
  projections: z.array(manifestProjectionSchema).optional(),
  /** Defaults a peer of another version may rely on not going down (src/host/limit-floors.ts, src/client/limit-floors.ts). Absent before 0.2. */
  limits: z.object({ host: z.record(z.string(), promisedLimitSchema), client: z.record(z.string(), promisedLimitSchema) }).optional(),
});

export type WireManifest = z.infer<typeof wireManifestSchema>;
export type ManifestOpcode = z.infer<typeof manifestOpcodeSchema>;
export type ManifestCapability = z.infer<typeof manifestCapabilitySchema>;
export type SurfaceEntry = z.infer<typeof surfaceEntrySchema>;
export type SurfaceKind = SurfaceEntry['kind'];
