import type { SurfaceEntry, SurfaceKind, WireManifest } from '../../src/manifest/manifest-schema.js';
import { schemaSurface } from '../../src/manifest/surface.js';

export interface ReadSurface {
  readonly entries: readonly SurfaceEntry[];
  /** Kinds the manifest cannot tell: it predates the surface list, and no schema says them. */
  readonly unknownKinds: readonly SurfaceKind[];
}

/** Only a build's own tables know these; a manifest without a surface list says nothing about them. */
const TABLE_ONLY_KINDS: readonly SurfaceKind[] = ['flag', 'error'];

/**
 * A build's wire surface: its own list when the manifest has one, otherwise
 * what its opcodes, JSON Schemas and capabilities give (v0.1.0 has no list),
 * with the kinds that cannot be derived named so the rules can skip them and say so.
 */
export function readSurface(manifest: WireManifest): ReadSurface {
  if (manifest.surface) return { entries: manifest.surface, unknownKinds: [] };
  return { entries: schemaSurface(manifest.opcodes, manifest.capabilities), unknownKinds: TABLE_ONLY_KINDS };
}

export function entriesOf<K extends SurfaceKind>(surface: ReadSurface, kind: K): Array<Extract<SurfaceEntry, { kind: K }>> {
  return surface.entries.filter((e): e is Extract<SurfaceEntry, { kind: K }> => e.kind === kind);
}

/** What the static pass could not compare, in words for the report. */
export function surfaceNotes(baseline: WireManifest, current: WireManifest): string[] {
  const notes: string[] = [];
  for (const [side, m] of [['baseline', baseline], ['working tree', current]] as const) {
    const unknown = readSurface(m).unknownKinds;
    if (unknown.length) {
      notes.push(`the ${side} manifest (${m.packageVersion}) has no surface list; ${unknown.map((k) => `${k} entries`).join(' and ')} were not compared (opcodes, fields, events and capabilities were read from its schemas)`);
    }
  }
  return notes;
}
