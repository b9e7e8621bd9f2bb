import type { PeerHello } from '../peer/control-channel.js';
import type { StepName } from '../recording.js';
import type { DrivableOps, JourneyStep } from './steps.js';

/** What a peer of protocol 1 answers; its hello did not announce them (v0.1.0 and its like). */
export const PROTOCOL_1_OPS = {
  host: ['emit', 'state'],
  client: ['subscribe', 'write', 'hide', 'reveal', 'unsubscribe', 'state'],
} as const;

type Hello = PeerHello['hello'];

/** The ops one build's peers answer, from its codec peer's hello (sent before any journey starts). */
export function buildPeerOps(codecHello: Hello): { host: readonly string[]; client: readonly string[] } {
  return codecHello.peerOps ?? (codecHello.peerProtocol === 1 ? PROTOCOL_1_OPS : { host: [], client: [] });
}

/** What both builds' peers answer: only those ops drive a step in all four pairings of the run. */
export function drivableOps(a: Hello, b: Hello): DrivableOps {
  const [x, y] = [buildPeerOps(a), buildPeerOps(b)];
  const both = (p: readonly string[], q: readonly string[]) => new Set(p.filter((op) => q.includes(op)));
  return { host: both(x.host, y.host), client: both(x.client, y.client) };
}

/**
 * The steps this gate run skips in every pairing, with the reason: a step
 * runs only where both builds' peers can drive it, so each skew pairing has a
 * same-version reference for the same steps.
 */
export function stepsSkippedInRun(steps: readonly JourneyStep[], ops: DrivableOps, builds: { old: Hello; new: Hello }): Map<StepName, string> {
  const skipped = new Map<StepName, string>();
  for (const step of steps) {
    for (const role of ['client', 'host'] as const) {
      const missing = (step.needs?.[role] ?? []).find((op) => !ops[role].has(op));
      if (missing === undefined || skipped.has(step.name)) continue;
      const lacking = (['old', 'new'] as const).filter((side) => !buildPeerOps(builds[side])[role].includes(missing)).map((side) => `the ${side} build's ${role} peer (${builds[side].version}, peer protocol ${builds[side].peerProtocol})`);
      skipped.set(step.name, `${lacking.join(' and ')} cannot '${missing}'`);
    }
  }
  return skipped;
}

/** The steps one build's peers cannot drive in this run, and the ops they lack: reported once per build, never as a missing step. */
export interface UndrivableSteps {
  readonly side: 'old' | 'new';
  readonly version: string;
  readonly peerProtocol: number;
  readonly steps: readonly StepName[];
  readonly lackingOps: readonly string[];
}

export function undrivableByBuild(steps: readonly JourneyStep[], builds: { old: Hello; new: Hello }): UndrivableSteps[] {
  return (['old', 'new'] as const).flatMap((side) => {
    const own = buildPeerOps(builds[side]);
    const lacking = new Set<string>();
    const stepNames: StepName[] = [];
    for (const step of steps) {
      const missing = (['client', 'host'] as const).flatMap((role) => (step.needs?.[role] ?? []).filter((op) => !own[role].includes(op)));
      if (!missing.length) continue;
      stepNames.push(step.name);
      missing.forEach((op) => lacking.add(op));
    }
    return stepNames.length ? [{ side, version: builds[side].version, peerProtocol: builds[side].peerProtocol, steps: stepNames, lackingOps: [...lacking] }] : [];
  });
}
