import { CLIENT_LIMIT_FLOORS } from '../client/limit-floors.js';
import { DEFAULT_CLIENT_OPTIONS } from '../client/options.js';
import { DEFAULT_DELIVERY_OPTIONS } from '../delivery/options.js';
import { HOST_LIMIT_FLOORS } from '../host/limit-floors.js';
import { DEFAULT_HOST_OPTIONS } from '../host/options.js';

/** A default a peer of another version may rely on not going down, and why. */
export interface PromisedLimit {
  readonly value: number;
  readonly floor: string;
}

export interface PromisedLimits {
  readonly host: Record<string, PromisedLimit>;
  readonly client: Record<string, PromisedLimit>;
}

/** The number at a dotted path of an options object (`json.maxJsonBytes`), or undefined. */
export function numberAt(options: unknown, path: string): number | undefined {
  let at: unknown = options;
  for (const key of path.split('.')) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return typeof at === 'number' ? at : undefined;
}

/** Each floor's default value in `defaults`; a floor the defaults do not have is left out. */
export function promisedValues(defaults: unknown, floors: Readonly<Record<string, string>>): Record<string, PromisedLimit> {
  const out: Record<string, PromisedLimit> = {};
  for (const [name, floor] of Object.entries(floors)) {
    const value = numberAt(defaults, name);
    if (value !== undefined) out[name] = { value, floor };
  }
  return out;
}

/** The host's options as its runtime takes them: its limits, and its input ledger's share of the delivery options. */
export const hostDefaults = (hostOptions: unknown, deliveryOptions: unknown) => ({ ...(hostOptions as object), delivery: deliveryOptions });

/** This build's promised defaults, for its manifest. */
export function buildPromisedLimits(): PromisedLimits {
  return {
    host: promisedValues(hostDefaults(DEFAULT_HOST_OPTIONS, DEFAULT_DELIVERY_OPTIONS), HOST_LIMIT_FLOORS),
    client: promisedValues(DEFAULT_CLIENT_OPTIONS, CLIENT_LIMIT_FLOORS),
  };
}
