import type { HostLimits } from '../../src/host/options.js';

/** The host limits a gate run may set on its host peers (`--flow-limits`; PEER_HOST_ARGS `flowLimits`): a stream's windows and queue, and its connection's windows. */
export const FLOW_LIMIT_NAMES = ['streamWindowInitialBytes', 'streamWindowMaxBytes', 'streamQueueMaxBytes', 'connectionWindowInitialBytes', 'connectionWindowMaxBytes'] as const;

export type FlowLimits = Readonly<Pick<HostLimits, (typeof FLOW_LIMIT_NAMES)[number]>>;

/**
 * `--flow-limits`: a JSON object holding each of FLOW_LIMIT_NAMES and nothing
 * else, each a positive whole number, a window's first size at most its
 * largest. Undefined when the text is not that, so the peer refuses it rather
 * than run with limits the gate did not ask for. A later set of limits is a
 * new argument: a released peer refuses names it does not know.
 */
export function parseFlowLimitsArg(text: string): FlowLimits | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const given = parsed as Record<string, unknown>;
  const names = Object.keys(given);
  if (names.length !== FLOW_LIMIT_NAMES.length || !FLOW_LIMIT_NAMES.every((name) => Number.isSafeInteger(given[name]) && (given[name] as number) > 0)) return undefined;
  const limits = given as unknown as FlowLimits;
  return limits.streamWindowInitialBytes <= limits.streamWindowMaxBytes && limits.connectionWindowInitialBytes <= limits.connectionWindowMaxBytes ? limits : undefined;
}
