import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_CLIENT_CAPABILITIES, DEFAULT_HOST_CAPABILITIES } from '../capabilities/defaults.js';
import { manifestProjections } from '../capabilities/projection-table.js';
import { CAPABILITIES, type CapabilitySet } from '../capabilities/registry.js';
import { WIRE_VERSION } from '../codec/header.js';
import { WIRE_ERROR_CODES } from '../codec/errors.js';
import { METADATA_EVENTS } from '../codec/events.js';
import { INPUT_ACK_FLAGS } from '../codec/input-ack-flags.js';
import { allOpcodes, OPCODES } from '../codec/opcodes.js';
import { HOST_ERROR_CODES } from '../host/options.js';
import { MANIFEST_FORMAT, type ManifestOpcode, type SurfaceEntry, type WireManifest } from './manifest-schema.js';
import { buildPromisedLimits } from './limit-values.js';
import { PEER_PROTOCOL_VERSION } from './peer-protocol-version.js';
import { errorKey, flagKey, schemaSurface } from './surface.js';

/** The package.json nearest above this module: src/ under tsx, dist/src/ once built. */
export function readOwnPackageVersion(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'termwire' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no termwire package.json above ${from}`);
    dir = parent;
  }
}

function plainSet(set: Readonly<CapabilitySet>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, version] of Object.entries(set)) if (version !== undefined) out[name] = version;
  return out;
}

/** This build's wire surface, derived from the opcode table and capability registry only. */
export function buildManifest(packageVersion: string = readOwnPackageVersion()): WireManifest {
  const opcodes: ManifestOpcode[] = allOpcodes().map((spec) => ({
    code: spec.code,
    name: spec.name,
    direction: spec.direction,
    payloadKind: spec.payload.kind,
    gatedBy: spec.gatedBy ?? null,
    since: spec.since,
    retired: spec.retired ?? false,
    schema: spec.payload.kind === 'json' ? (z.toJSONSchema(spec.payload.schema, { io: 'input' }) as Record<string, unknown>) : null,
  }));
  const capabilities: WireManifest['capabilities'] = {};
  for (const [name, cap] of Object.entries(CAPABILITIES)) {
    capabilities[name] = { since: cap.since, gatesOpcodes: [...cap.gatesOpcodes], gatesFields: [...cap.gatesFields], purpose: cap.purpose };
  }
  return {
    manifestFormat: MANIFEST_FORMAT,
    surface: buildSurface(opcodes, capabilities),
    packageVersion,
    wireVersion: WIRE_VERSION,
    peerProtocol: PEER_PROTOCOL_VERSION,
    opcodes,
    capabilities,
    advertised: { host: plainSet(DEFAULT_HOST_CAPABILITIES), client: plainSet(DEFAULT_CLIENT_CAPABILITIES) },
    projections: manifestProjections(),
    limits: buildPromisedLimits(),
  };
}

/** Everything a peer of another version can meet, from the tables: schemas, events, flags, error codes, capabilities. */
function buildSurface(opcodes: readonly ManifestOpcode[], capabilities: WireManifest['capabilities']): SurfaceEntry[] {
  const since = (type: string) => (Object.hasOwn(METADATA_EVENTS, type) ? METADATA_EVENTS[type as keyof typeof METADATA_EVENTS].since : undefined);
  const fromSchemas = schemaSurface(opcodes, capabilities).map((e) => (e.kind === 'event' && since(e.type) !== undefined ? { ...e, since: since(e.type)! } : e));
  const ack = OPCODES.InputAck;
  const flags: SurfaceEntry[] = INPUT_ACK_FLAGS.map((f) => ({
    kind: 'flag',
    key: flagKey(ack.name, f.byte),
    directions: [ack.direction],
    opcode: ack.name,
    value: f.byte,
    status: f.status,
    meaning: f.meaning,
    since: f.since,
    gatedBy: ack.gatedBy,
  }));
  const hostErrors: SurfaceEntry[] = Object.entries(HOST_ERROR_CODES).map(([code, meaning]) => ({ kind: 'error', key: errorKey('host', code), directions: [OPCODES.Error.direction], code, source: 'host', meaning }));
  // Either side's decoder raises these about a frame it received; the host also quotes them in BAD_FRAME.
  const decoderErrors: SurfaceEntry[] = Object.entries(WIRE_ERROR_CODES).map(([code, e]) => ({ kind: 'error', key: errorKey('decoder', code), directions: ['clientToHost', 'hostToClient'], code, source: 'decoder', meaning: e.meaning }));
  return [...fromSchemas, ...flags, ...hostErrors, ...decoderErrors];
}
