import { legacySnapshotSource } from '../codec/snapshot-cause.js';
import { type AnyProjection, projection } from './projections.js';

/**
 * Every projection this build applies: an opcode whose payload changed shape
 * under a capability, and what a peer without that capability gets instead.
 * Host and client each build one ProjectionRegistry from this table at startup;
 * the manifest lists it (manifestProjections). Rows on one opcode run in this order.
 */
export const PROJECTIONS: readonly AnyProjection[] = [
  projection({
    name: 'SnapshotStart.cause-as-source',
    opcode: 'SnapshotStart',
    capability: 'snapshotCause',
    purpose: "renames SnapshotStart.cause back to source, in place; the causes resume and overflow both become 'recovery'",
    project: (start) => renameField(start, 'cause', 'source', legacySnapshotSource),
  }),
];

/** One row of the manifest's projection list. */
export interface ManifestProjection {
  readonly name: string;
  readonly opcode: string;
  readonly capability: string;
  readonly purpose: string;
}

/** The table as the manifest lists it: which projections exist, on what, under which capability. */
export function manifestProjections(table: readonly AnyProjection[] = PROJECTIONS): ManifestProjection[] {
  return table.map(({ name, opcode, capability, purpose }) => ({ name, opcode, capability, purpose }));
}

/**
 * A copy with `from` renamed to `to` at the same position, its value mapped, so
 * the older peer gets its JSON byte for byte (key order included).
 */
function renameField<T extends object>(payload: T, from: string, to: string, map: (value: string) => string): T {
  if (!(from in payload)) return payload;
  return Object.fromEntries(Object.entries(payload).map(([key, value]) => (key === from ? [to, typeof value === 'string' ? map(value) : value] : [key, value]))) as T;
}
