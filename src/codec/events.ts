import { z } from 'zod';
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
