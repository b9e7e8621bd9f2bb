import { DEFAULT_CLIENT_CAPABILITIES } from '../capabilities/defaults.js';
import { PROJECTIONS } from '../capabilities/projection-table.js';
import { ProjectionRegistry } from '../capabilities/projections.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import { DEFAULT_DELIVERY_OPTIONS, type DeliveryOptions } from '../delivery/options.js';
import type { FrameLink } from '../transport/link.js';

/** Timers, injected so tests drive ack batching and backoff without sleeping. */
export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realScheduler: Scheduler = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface ClientOptions {
  /** Opens one connection to the host; called again for every reconnect. Required. */
  readonly connect: () => Promise<FrameLink>;
  /** Capabilities advertised in every Subscribe. Default DEFAULT_CLIENT_CAPABILITIES. */
  readonly capabilities: CapabilitySet;
  /** Sent in Subscribe as `client`. Default undefined (omitted). */
  readonly clientInfo: { readonly id: string; readonly type: string } | undefined;
  /** First reconnect delay. Default 100 ms. */
  readonly reconnectInitialDelayMs: number;
  /** Each failed attempt multiplies the delay by this. Default 2. */
  readonly reconnectFactor: number;
  /** The delay never grows past this. Default 5000 ms. */
  readonly reconnectMaxDelayMs: number;
  /** A delay is spread by up to this fraction either way, so many clients do not reconnect in step. Default 0.2. */
  readonly reconnectJitter: number;
  /** Source of jitter, in [0, 1). Default Math.random. */
  readonly random: () => number;
  /** An Ack goes out once this many Output bytes are unacked. Default 196608 (192 KiB). */
  readonly ackBatchBytes: number;
  /** ...or this long after the first unacked byte. Default 4 ms. */
  readonly ackDelayMs: number;
  /** Input held per stream while not subscribed; a write past it is refused. Default 1048576 (1 MiB). */
  readonly maxHeldInputBytes: number;
  /** A snapshot larger than this is abandoned (the stream keeps waiting for the next one). Default 67108864 (64 MiB). */
  readonly maxSnapshotBytes: number;
  /** Scrollback rows of each stream's local screen. Default 1000. */
  readonly scrollbackRows: number;
  /** Screen size before the host says otherwise. Default {cols: 80, rows: 24}. */
  readonly initialViewport: { readonly cols: number; readonly rows: number };
  /** Timers. Default the global setTimeout/clearTimeout. */
  readonly scheduler: Scheduler;
  /** Exactly-once input: resend backoff, stall resend, journal budget, paste chunks. Default DEFAULT_DELIVERY_OPTIONS. */
  readonly delivery: DeliveryOptions;
  /** Makes each stream's inputSessionId. Default crypto.randomUUID. */
  readonly newInputSessionId: () => string;
  /** Per-peer downgrades applied to every frame this client sends, built once. Default a registry of PROJECTIONS. */
  readonly projections: ProjectionRegistry;
}

export const DEFAULT_CLIENT_OPTIONS: Omit<ClientOptions, 'connect'> = Object.freeze({
  capabilities: DEFAULT_CLIENT_CAPABILITIES,
  clientInfo: undefined,
  reconnectInitialDelayMs: 100,
  reconnectFactor: 2,
  reconnectMaxDelayMs: 5_000,
  reconnectJitter: 0.2,
  random: Math.random,
  ackBatchBytes: 192 * 1024,
  ackDelayMs: 4,
  maxHeldInputBytes: 1024 * 1024,
  maxSnapshotBytes: 64 * 1024 * 1024,
  scrollbackRows: 1000,
  initialViewport: Object.freeze({ cols: 80, rows: 24 }),
  scheduler: realScheduler,
  delivery: DEFAULT_DELIVERY_OPTIONS,
  newInputSessionId: () => globalThis.crypto.randomUUID(),
  projections: new ProjectionRegistry(PROJECTIONS),
});

export type ClientOptionsInput = Readonly<Partial<Omit<ClientOptions, 'delivery'>>> & Pick<ClientOptions, 'connect'> & { readonly delivery?: Readonly<Partial<DeliveryOptions>> };

export function resolveClientOptions(input: ClientOptionsInput): ClientOptions {
  const resolved = { ...DEFAULT_CLIENT_OPTIONS, ...stripUndefined(input) } as ClientOptions;
  return { ...resolved, delivery: Object.freeze({ ...DEFAULT_DELIVERY_OPTIONS, ...input.delivery }) };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
