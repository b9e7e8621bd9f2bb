import type { OpcodeName, OPCODES } from '../codec/opcodes.js';
import type { HostLimits } from './options.js';

/** The opcodes the host sends. */
export type HostSentOpcode = { [K in OpcodeName]: (typeof OPCODES)[K]['direction'] extends 'hostToClient' ? K : never }[OpcodeName];

/**
 * What bounds how often the host sends each frame a client or a program can
 * make it send: the option that bounds it, and how. Every resource a peer can
 * make the host spend has a limit, and a frame the host can be made to send at
 * will is one. Typed over every host-sent opcode, so a new opcode does not
 * compile until its bound is named here (`npm run new-opcode` says so), and a
 * test checks each option is documented in docs/host-limits.md.
 */
export const SEND_BOUNDS = {
  Output: { limit: 'streamQueueMaxBytes', how: "sent within the client's credit; past it output queues up to the limit, then a recovery snapshot replaces the queue" },
  OutputSpan: { limit: 'streamQueueMaxBytes', how: 'as Output, whose bytes it carries' },
  SnapshotStart: { limit: 'maxSnapshotRequestsPerSecond', how: 'every snapshot a client asks for (a request, a resume, a subscribe) spends from one per-connection rate' },
  SnapshotChunk: { limit: 'maxSnapshotRequestsPerSecond', how: 'as SnapshotStart, at most snapshotChunkBytes each' },
  SnapshotEnd: { limit: 'maxSnapshotRequestsPerSecond', how: 'as SnapshotStart' },
  Resized: { limit: 'minResizeIntervalMs', how: 'resizes closer together than the interval are merged' },
  Error: { limit: 'maxErrorRepliesPerSecond', how: 'replies past the rate close the connection' },
  Metadata: { limit: 'streamQueueMaxBytes', how: "events wait behind held output in the stream's queue; a title costs its program the bytes that set it, cut to maxTitleBytes" },
  WriteUnavailable: { limit: 'linkHardBufferedBytes', how: 'one per Input the client sends to an exited terminal, never more than it sent; a client that does not read is closed past the limit' },
  InputAck: { limit: 'linkHardBufferedBytes', how: 'one per Input the client sends, never more than it sent; a client that does not read is closed past the limit' },
} as const satisfies Record<HostSentOpcode, { readonly limit: keyof HostLimits; readonly how: string }>;
