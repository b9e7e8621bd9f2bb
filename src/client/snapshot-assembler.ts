import type { SnapshotStartPayload } from '../codec/schemas.js';
import type { ClientProblem } from './problems.js';

export interface AssembledSnapshot {
  readonly text: string;
  readonly cols: number;
  readonly rows: number;
  /** The output high-water mark the snapshot covers. */
  readonly seq: number;
  readonly source: string | undefined;
  readonly requestId: string | undefined;
  readonly truncated: boolean;
}

interface Open {
  readonly meta: SnapshotStartPayload;
  readonly seq: number;
  readonly chunks: string[];
  bytes: number;
}

/**
 * Collects SnapshotStart, SnapshotChunk... SnapshotEnd into one snapshot.
 * Pure bookkeeping: the caller applies the result to its screen.
 */
export class SnapshotAssembler {
  private open: Open | undefined;

  constructor(private readonly maxSnapshotBytes: number) {}

  get inProgress(): boolean {
    return this.open !== undefined;
  }

  /** Starts a snapshot; the frame's seq is used when the payload has none. Reports an abandoned open snapshot. */
  start(meta: SnapshotStartPayload, frameSeq: number): ClientProblem | undefined {
    const abandoned = this.open;
    this.open = { meta, seq: meta.seq ?? frameSeq, chunks: [], bytes: 0 };
    if (!abandoned) return undefined;
    return { code: 'SNAPSHOT_RESTARTED', message: `SnapshotStart seq ${this.open.seq} while snapshot seq ${abandoned.seq} was open after ${abandoned.bytes} bytes` };
  }

  chunk(text: string, byteLength: number): ClientProblem | undefined {
    const open = this.open;
    if (!open) return { code: 'SNAPSHOT_CHUNK_WITHOUT_START', message: `SnapshotChunk of ${byteLength} bytes with no open snapshot` };
    open.bytes += byteLength;
    if (open.bytes > this.maxSnapshotBytes) {
      this.open = undefined;
      return { code: 'SNAPSHOT_TOO_LARGE', message: `snapshot ${open.bytes} bytes > maxSnapshotBytes ${this.maxSnapshotBytes}` };
    }
    open.chunks.push(text);
    return undefined;
  }

  end(): { ok: true; snapshot: AssembledSnapshot } | { ok: false; problem: ClientProblem } {
    const open = this.open;
    if (!open) return { ok: false, problem: { code: 'SNAPSHOT_CHUNK_WITHOUT_START', message: 'SnapshotEnd with no open snapshot' } };
    this.open = undefined;
    const { meta } = open;
    return {
      ok: true,
      snapshot: {
        text: open.chunks.join(''),
        cols: meta.cols,
        rows: meta.rows,
        seq: open.seq,
        source: meta.cause ?? meta.source,
        requestId: meta.requestId,
        truncated: meta.truncated ?? false,
      },
    };
  }

  /** Drops an open snapshot (the connection it came on is gone). */
  reset(): void {
    this.open = undefined;
  }
}
