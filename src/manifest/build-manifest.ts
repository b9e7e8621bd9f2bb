import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { PEER_PROTOCOL_VERSION } from '../../compat/peer/protocol-version.js';
import { DEFAULT_CLIENT_CAPABILITIES, DEFAULT_HOST_CAPABILITIES } from '../capabilities/defaults.js';
import { manifestProjections } from '../capabilities/projection-table.js';
import { CAPABILITIES, type CapabilitySet } from '../capabilities/registry.js';
import { WIRE_VERSION } from '../codec/header.js';
import { allOpcodes } from '../codec/opcodes.js';
import { MANIFEST_FORMAT, type ManifestOpcode, type WireManifest } from './manifest-schema.js';

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
    packageVersion,
    wireVersion: WIRE_VERSION,
    peerProtocol: PEER_PROTOCOL_VERSION,
    opcodes,
    capabilities,
    advertised: { host: plainSet(DEFAULT_HOST_CAPABILITIES), client: plainSet(DEFAULT_CLIENT_CAPABILITIES) },
    projections: manifestProjections(),
  };
}
