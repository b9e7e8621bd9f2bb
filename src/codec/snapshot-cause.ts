/**
 * Why the host sent a snapshot. A peer that negotiated `snapshotCause` reads it
 * from SnapshotStart.cause; an older peer gets SnapshotStart.source, the older
 * vocabulary in which a resumed pane and lost output were both 'recovery'.
 */
export const SNAPSHOT_CAUSES = {
  subscribe: { source: 'subscribe', meaning: 'the first snapshot of a subscription' },
  request: { source: 'request', meaning: 'answers a SnapshotRequest, echoing its requestId' },
  resume: { source: 'recovery', meaning: 'output resumed after SetOutputPaused {paused: false}; nothing was lost' },
  overflow: { source: 'recovery', meaning: 'queued output overflowed and was dropped: this repaints what the client missed' },
} as const;

export type SnapshotCause = keyof typeof SNAPSHOT_CAUSES;

/** The older `source` value for a cause; a cause this build does not know passes through. */
export function legacySnapshotSource(cause: string): string {
  return Object.hasOwn(SNAPSHOT_CAUSES, cause) ? SNAPSHOT_CAUSES[cause as SnapshotCause].source : cause;
}
