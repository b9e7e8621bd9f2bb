import { z } from 'zod';

// zod objects strip unknown keys by default: a field added by a newer peer is
// ignored, never an error (compatibility Rule 1). Optional stays optional.
const dimension = z.number().int().min(1).max(65535);
const seqNumber = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const capabilitySet = z.record(z.string(), z.number().int().min(0));

/**
 * A value that legitimately differs from run to run (a random id, a clock):
 * the reason travels in the schema, so the manifest and the gate's value
 * comparison read it from here and never list such fields themselves.
 */
export const volatile = <T extends z.ZodType>(schema: T, why: string): T => schema.meta({ volatile: why }) as T;

export const viewportSchema = z.object({ cols: dimension, rows: dimension });

export const snapshotStartSchema = z.object({
  kind: z.string(),
  cols: dimension,
  rows: dimension,
  requestId: z.string().optional(),
  seq: seqNumber.optional(),
  source: z.string().optional(),
  /** Replaces `source` where snapshotCause was negotiated (src/codec/snapshot-cause.ts); a string, so a later cause is not refused. */
  cause: z.string().optional(),
  truncated: z.boolean().optional(),
});

export const resizedSchema = z.object({
  cols: dimension,
  rows: dimension,
  reason: z.string().optional(),
  seq: seqNumber.optional(),
});

export const subscribeSchema = z.object({
  streamId: z.number().int().min(1).max(0xffffffff),
  terminal: z.string().min(1).max(256),
  client: z.object({ id: z.string(), type: z.string() }).optional(),
  viewport: viewportSchema.optional(),
  capabilities: capabilitySet.optional(),
  inputSessionId: volatile(z.string().min(1).max(128), 'random per client stream (crypto.randomUUID)').optional(),
  /**
   * The client's TERM and locale (since 0.3), for a terminal this Subscribe
   * starts; a running terminal keeps its own. The host keeps what its table
   * accepts (src/host/session-environment.ts) and ignores the rest.
   */
  environment: z.record(z.string().max(64), z.string().max(256)).optional(),
  /** outputResume: the seq of the last Output this client received of the terminal instance below; the host resumes after it when it still holds the bytes. */
  resumeFrom: seqNumber.optional(),
  /** outputResume: the instanceId of the terminal resumeFrom counts in (a new instance counts from 0 again). */
  resumeInstanceId: volatile(z.string().min(1).max(128), 'random per terminal instance').optional(),
});

export const snapshotRequestSchema = z.object({
  requestId: z.string().max(128).optional(),
  scrollbackRows: z.number().int().min(0).optional(),
});

export const subscribedEventSchema = z.object({
  type: z.literal('subscribed'),
  streamId: z.number().int().min(1).max(0xffffffff),
  terminal: z.string(),
  cols: dimension,
  rows: dimension,
  seq: seqNumber,
  truncated: z.boolean(),
  capabilities: capabilitySet.optional(),
  inputLedgerId: volatile(z.string(), 'random per host runtime and ledger session').optional(),
  /** The terminal process's id (since 0.2): a new id means a new shell. Optional forever (Rule 1). */
  instanceId: volatile(z.string().max(128), 'random per terminal instance').optional(),
  /** outputResume, when Subscribe named resumeFrom: what the host did with it (src/codec/resume-outcome.ts); a string, so a later outcome is not refused. */
  resume: z.string().optional(),
});

export const titleEventSchema = z.object({ type: z.literal('title'), title: z.string() });
export const exitEventSchema = z.object({
  type: z.literal('exit'),
  exitCode: z.number().int().nullable().optional(),
  signal: z.number().int().nullable().optional(),
});
export const unsubscribedEventSchema = z.object({ type: z.literal('unsubscribed'), streamId: z.number().int() });
/** A control event this build does not know: kept as its type only, so the caller can decide. */
export const otherEventSchema = z.object({ type: z.string() });

export const ackSchema = z.object({ bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

export const outputSpanSchema = z.object({
  data: z.string(),
  rawLength: z.number().int().min(0),
  transformed: z.boolean(),
});

export const setOutputPausedSchema = z.object({ paused: z.boolean() });

export type SubscribePayload = z.infer<typeof subscribeSchema>;
export type SubscribedEvent = z.infer<typeof subscribedEventSchema>;
export type SnapshotStartPayload = z.infer<typeof snapshotStartSchema>;
