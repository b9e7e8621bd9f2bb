import { z } from 'zod';
import { compiledSchema } from './compiled-schema.js';
import { exitEventSchema, otherEventSchema, subscribedEventSchema, titleEventSchema, unsubscribedEventSchema } from './schemas.js';

export interface MetadataEventSpec {
  readonly schema: z.ZodObject;
  /** The wire version the event came in. */
  readonly since: number;
  readonly summary: string;
}

/**
 * Every control event a host sends in a Metadata frame, by its `type`. The
 * Metadata schema, the client's dispatch and the manifest's event list are
 * derived from this table; a type that shipped is never removed or renamed.
 */
export const METADATA_EVENTS = {
  subscribed: { schema: subscribedEventSchema, since: 1, summary: 'answers Subscribe on the new stream: size, seq, capability echo, input ledger' },
  title: { schema: titleEventSchema, since: 1, summary: 'the terminal title changed' },
  exit: { schema: exitEventSchema, since: 1, summary: 'the terminal process exited; writes are refused from now on' },
  unsubscribed: { schema: unsubscribedEventSchema, since: 1, summary: 'confirms Unsubscribe; nothing more comes on the stream' },
} as const satisfies Record<string, MetadataEventSpec>;

export type MetadataEventType = keyof typeof METADATA_EVENTS;

type EventVariant = (typeof METADATA_EVENTS)[MetadataEventType]['schema'] | typeof otherEventSchema;

/** Every known event, then any other `{type}` so a newer host's event reaches the caller as data, not an error. */
const variants: EventVariant[] = [...Object.values(METADATA_EVENTS).map((e) => e.schema), otherEventSchema];
export const metadataSchema = z.union(variants as [EventVariant, ...EventVariant[]]);

export type MetadataEvent = z.infer<typeof metadataSchema>;

export function isKnownEventType(type: string): type is MetadataEventType {
  return Object.hasOwn(METADATA_EVENTS, type);
}

export type KnownMetadataEvent = z.infer<(typeof METADATA_EVENTS)[MetadataEventType]['schema']>;

/**
 * A known event checked by its own schema: the Metadata union falls back to
 * `{type}` when a known type lacks its fields, so a client re-checks it here.
 * Undefined for a type this build does not know (data, not an error).
 */
export function checkKnownEvent(event: { readonly type: string }, payload?: Uint8Array): { ok: true; value: KnownMetadataEvent } | { ok: false; message: string } | undefined {
  if (!isKnownEventType(event.type)) return undefined;
  const schema = compiledSchema(METADATA_EVENTS[event.type].schema);
  const parsed = schema.safeParse(event);
  if (parsed.success) return { ok: true, value: parsed.data as KnownMetadataEvent };
  // The union's fallback kept `type` alone, so the first issue of what is left may name a field that was sent
  // (streamId) rather than the one that failed (truncated): the event as sent names it. What is accepted is unchanged.
  const sent = payload && eventAsSent(payload);
  const issue = (sent && schema.safeParse(sent).error?.issues[0]) || parsed.error.issues[0];
  return { ok: false, message: `'${event.type}' event: ${issue?.path.join('.') || '(root)'}: ${issue?.message}` };
}

/** A Metadata payload as it was sent, before the union kept only what it knows; undefined when it is not a JSON object. */
function eventAsSent(payload: Uint8Array): object | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(payload));
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
