import { DEFAULT_HOST_OPTIONS, type HostLimits } from '../../src/host/options.js';

type NumericLimit = { [K in keyof HostLimits]: HostLimits[K] extends number ? K : never }[keyof HostLimits];

/**
 * The host limits a gate run sets on its host peers (`--host-limits`, a JSON
 * object; PEER_HOST_ARGS `hostLimits`): numeric limits of this build by name,
 * each a positive whole number. Undefined when the text is not that, so the
 * peer refuses it rather than run with limits the gate did not ask for.
 */
export function parseHostLimitsArg(text: string): Partial<Pick<HostLimits, NumericLimit>> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const entries = Object.entries(parsed as Record<string, unknown>);
  const numeric = (name: string) => Object.hasOwn(DEFAULT_HOST_OPTIONS, name) && typeof DEFAULT_HOST_OPTIONS[name as keyof HostLimits] === 'number';
  return entries.every(([name, value]) => numeric(name) && Number.isSafeInteger(value) && (value as number) > 0) ? Object.fromEntries(entries) : undefined;
}
