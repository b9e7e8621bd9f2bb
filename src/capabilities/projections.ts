import { OPCODES, type OpcodeName } from '../codec/opcodes.js';
import type { PayloadInput } from '../codec/payload.js';
import type { CapabilityName, CapabilitySet } from './registry.js';

/** Where a projected frame is going, for projections that need more than the payload. */
export interface ProjectionFrame {
  readonly streamId: number;
  /** The frame header's seq. */
  readonly seq: number;
}

/**
 * One per-peer downgrade (Rule 3's transitional path). This build publishes an
 * opcode's payload in the shape that `capability` introduced; for a peer that
 * did not negotiate `capability`, `project` returns the shape that peer
 * expects, or null to withhold the frame from it.
 */
export interface ProjectionSpec<N extends OpcodeName = OpcodeName> {
  /** Stable and unique: it names the projection in logs and in the manifest. */
  readonly name: string;
  readonly opcode: N;
  readonly capability: CapabilityName;
  /** What it does to the frame, in one sentence (the manifest lists it). */
  readonly purpose: string;
  readonly project: (payload: PayloadInput<N>, frame: ProjectionFrame) => PayloadInput<N> | null;
}

/** A row of the table, whatever its opcode. */
export type AnyProjection = { [N in OpcodeName]: ProjectionSpec<N> }[OpcodeName];

/** Types one table row: the payload the projection sees is its opcode's. */
export function projection<N extends OpcodeName>(spec: ProjectionSpec<N>): ProjectionSpec<N> {
  return spec;
}

/** What a projection did to a frame, counted next to the side's gated drops. */
export interface ProjectionCounters {
  /** Frames a projection withheld from a peer without its capability. */
  projectionsWithheld: number;
  /** Frames not sent because a projection threw; each is also logged. */
  projectionErrors: number;
}

export interface ProjectionRegistryOptions {
  /** Where a throwing projection is reported. Default console.warn. */
  readonly log?: (line: string) => void;
}

/**
 * Every projection one side applies, built once at startup from a table
 * (PROJECTIONS) and shared by its streams. Projections on one opcode run in
 * table order, each on the previous one's result.
 */
export class ProjectionRegistry {
  readonly log: (line: string) => void;
  private readonly byOpcode = new Map<number, AnyProjection[]>();

  constructor(
    readonly table: readonly AnyProjection[],
    options: ProjectionRegistryOptions = {},
  ) {
    this.log = options.log ?? ((line) => console.warn(line));
    const names = new Set<string>();
    for (const row of table) {
      if (names.has(row.name)) throw new Error(`projection '${row.name}' is registered twice`);
      names.add(row.name);
      const code = OPCODES[row.opcode].code;
      this.byOpcode.set(code, [...(this.byOpcode.get(code) ?? []), row]);
    }
  }

  /** True when some projection may rewrite this opcode: senders skip the work otherwise. */
  has(opcode: number): boolean {
    return this.byOpcode.has(opcode);
  }

  /** The projections on an opcode, in the order they run. */
  on(opcode: number): readonly AnyProjection[] {
    return this.byOpcode.get(opcode) ?? [];
  }
}

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();

/**
 * One stream's send-side view of the registry: what it negotiated decides which
 * projections run. It sits after the SendGate and before encoding; a frame a
 * projection withholds, or one whose projection throws, is not sent, is counted,
 * and the stream carries on.
 */
export class StreamProjections {
  constructor(
    private readonly registry: ProjectionRegistry,
    readonly streamId: number,
    private negotiated: CapabilitySet,
    private readonly counters: ProjectionCounters,
  ) {}

  /** The echo changed (a new subscription, or none after a disconnect). */
  update(negotiated: CapabilitySet): void {
    this.negotiated = negotiated;
  }

  /** The payload this peer gets, wrapped; undefined when nothing is to be sent. */
  project<N extends OpcodeName>(name: N, payload: PayloadInput<N>, seq: number): { readonly payload: PayloadInput<N> } | undefined {
    const rows = this.registry.on(OPCODES[name].code) as readonly ProjectionSpec<N>[];
    let current = payload;
    for (const row of rows) {
      if ((this.negotiated[row.capability] ?? 0) >= 1) continue;
      let next: PayloadInput<N> | null;
      try {
        next = row.project(current, { streamId: this.streamId, seq });
      } catch (error) {
        this.counters.projectionErrors++;
        this.registry.log(`PROJECTION_FAILED: projection '${row.name}' on ${name} (stream ${this.streamId}, seq ${seq}) threw; frame not sent: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
      if (next === null) {
        this.counters.projectionsWithheld++;
        return undefined;
      }
      current = next;
    }
    return { payload: current };
  }

  /**
   * For text opcodes the sender holds as bytes (Output, SnapshotChunk): the
   * same bytes when no projection touches the opcode, so the hot path does not
   * decode; undefined when nothing is to be sent.
   */
  projectBytes(name: 'Output' | 'SnapshotChunk', bytes: Uint8Array, seq: number): Uint8Array | undefined {
    if (!this.registry.has(OPCODES[name].code)) return bytes;
    const text = utf8Decoder.decode(bytes);
    const projected = this.project(name, text, seq);
    if (!projected) return undefined;
    return projected.payload === text ? bytes : utf8Encoder.encode(projected.payload);
  }
}
