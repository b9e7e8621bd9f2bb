import type { CapabilitySet } from '../../src/capabilities/registry.js';
import { MOVES } from './moves.js';
import { EXIT_MOVE, type Schedule, scheduleOf, WITHOUT_MOVE } from './schedule.js';

/**
 * What a link without each optional capability changes on the wire, and the
 * moves that walk it. Every gate run walks one journey per capability, each
 * with that one withheld by the proxy: every client advertises it and no host
 * hears of it (withheldFromSubscribe). The host walks its path for a client
 * that lacks the feature, the usual older or foreign client; the client walks
 * its path against a host that lacks it, whichever build either one is.
 * Explore reaches those paths otherwise only when it happens to draw them.
 */
const MOVES_WITHOUT: Readonly<Record<string, readonly string[]>> = {
  // Output runs on no credit: no window may hold it back.
  ackOutput: ['burst'],
  // Hiding does not pause the stream; the reveal still repaints.
  outputPause: ['hideReveal'],
  // Input after the exit is answered with an Error instead.
  writeUnavailable: [EXIT_MOVE],
  // Input is unsequenced and unanswered; what is typed into a dead link arrives at most once.
  inputAck: ['type', 'drop'],
  // Snapshots carry no cause.
  snapshotCause: ['hideReveal'],
  // A reconnect after output is repainted by a snapshot instead of resumed.
  outputResume: ['output', 'drop'],
  // Snapshots come in the form released clients draw.
  snapshotRepaint: ['hideReveal'],
};

/** `--capabilities-off`: walk the journeys (each) or skip them (none). */
export const CAPABILITIES_OFF_MODES = ['each', 'none'] as const;
export type CapabilitiesOffMode = (typeof CAPABILITIES_OFF_MODES)[number];

/**
 * For a capability without a row: every move explore has, once each, so the
 * path of whatever it gates is walked (a new opcode's move included) without a
 * row here; a row only makes its journey shorter.
 */
const MOVES_WITHOUT_ANY = MOVES.map((m) => m.name);

/**
 * The optional capabilities worth switching off in a run: those both builds'
 * clients advertise and both hosts support. Switching off one that a build
 * never negotiates would walk its defaults again.
 */
export function switchableCapabilities(advertised: ReadonlyArray<{ readonly client: Readonly<CapabilitySet>; readonly host: Readonly<CapabilitySet> }>): string[] {
  const everywhere = (name: string) => advertised.every((a) => (a.client[name] ?? 0) > 0 && (a.host[name] ?? 0) > 0);
  return Object.keys(advertised[0]?.client ?? {}).filter(everywhere).sort();
}

/**
 * One schedule per capability: `without:NAME`, then its moves. The seed only
 * names the journey (moves take their texts from their position, not from it).
 */
export function capabilityOffSchedules(capabilities: readonly string[]): Schedule[] {
  return capabilities.map((name, i) => scheduleOf(i, [`${WITHOUT_MOVE}${name}`, ...(MOVES_WITHOUT[name] ?? MOVES_WITHOUT_ANY)]));
}
