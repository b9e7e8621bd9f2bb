import type { CapabilityName, CapabilitySet } from './registry.js';

/**
 * Per-peer downgrade (Rule 3's transitional path): a frame published in a new
 * shape can be rewritten for a peer that lacks the capability the new shape
 * needs. A projection returns the payload the old peer expects, or null to
 * withhold the frame from that peer.
 */
export type Projection<T = unknown> = (payload: T) => T | null;

interface Registered {
  readonly capability: CapabilityName;
  readonly project: Projection;
}

export class ProjectionRegistry {
  private readonly byOpcode = new Map<number, Registered[]>();

  register<T>(opcode: number, capability: CapabilityName, project: Projection<T>): void {
    const list = this.byOpcode.get(opcode) ?? [];
    list.push({ capability, project: project as Projection });
    this.byOpcode.set(opcode, list);
  }

  /** Applies every projection whose capability this peer lacks, in registration order. */
  project<T>(opcode: number, payload: T, peer: CapabilitySet): T | null {
    let current: unknown = payload;
    for (const entry of this.byOpcode.get(opcode) ?? []) {
      if ((peer[entry.capability] ?? 0) >= 1) continue;
      current = entry.project(current);
      if (current === null) return null;
    }
    return current as T;
  }
}
