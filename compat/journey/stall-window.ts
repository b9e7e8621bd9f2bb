import type { PairingRecording } from '../recording.js';
import type { Observation } from './observed-state.js';

/**
 * How long a step may go without progress before it is reported stalled,
 * learned from how long the same step took in the same run's old × old
 * reference (the baseline's own peers, where nothing is broken). A planted
 * break that stalls a step then costs seconds, not the whole step deadline;
 * a step that is slow but moving is never cut short, because any progress
 * restarts its window, and the step deadline still caps it.
 */
export const STALL_WINDOW = {
  /** Times the slowest reference took for the step. */
  factor: 3,
  /** Never shorter, nor shorter than the client's pong deadline and 1 s more: a silent drop takes that deadline to notice. */
  floorMs: 3_000,
} as const;

/** Per step of the plan, by index: its window in ms, or undefined where a reference did not finish it. */
export type StallWindows = ReadonlyArray<number | undefined>;

export const NO_STALL_WINDOWS: StallWindows = [];

export function stallWindowsFrom(references: readonly PairingRecording[], stepDeadlineMs: number, clientPongDeadlineMs: number): StallWindows {
  const floorMs = Math.max(STALL_WINDOW.floorMs, clientPongDeadlineMs + 1000);
  const steps = references[0]?.steps ?? [];
  return steps.map((_, i) => {
    const results = references.map((r) => r.steps[i]);
    if (!results.every((s) => s?.status === 'ok' && s.name === steps[i]!.name)) return undefined;
    const slowest = Math.max(...results.map((s) => s!.durationMs));
    return Math.min(stepDeadlineMs, Math.max(floorMs, STALL_WINDOW.factor * slowest));
  });
}

/**
 * What changes when a journey makes progress: any frame on the wire, the
 * probe's ends and flood answers, or any peer's observed state. The host's
 * input log only grows, so its length stands for it: written out, a paste's
 * tens of KiB were stringified at every poll.
 */
export function progressMark(o: Observation): string {
  return `${o.wireCount}:${o.probeEnds.length}:${o.probeFloodAnswered}:${JSON.stringify([o.client, o.second, { ...o.host, inputLog: o.host.inputLog.length }])}`;
}

export class StepStalled extends Error {
  constructor(readonly missing: string) {
    super(missing);
  }
}

/**
 * Polls `observe` until `missing` finds nothing missing. Throws StepStalled
 * at the deadline, or sooner once nothing has moved for the stall window.
 */
export async function waitForBarrier(
  observe: () => Promise<Observation>,
  missing: (o: Observation) => string | undefined,
  limits: { readonly deadlineMs: number; readonly stallWindowMs?: number | undefined; readonly pollMs: number },
): Promise<Observation> {
  const deadline = Date.now() + limits.deadlineMs;
  const stallWindowMs = limits.stallWindowMs ?? limits.deadlineMs;
  let mark: string | undefined;
  let movedAt = Date.now();
  for (;;) {
    const observation = await observe();
    const gap = missing(observation);
    if (gap === undefined) return observation;
    const now = Date.now();
    const nowMark = progressMark(observation);
    if (nowMark !== mark) [mark, movedAt] = [nowMark, now];
    if (now > deadline || now - movedAt > stallWindowMs) throw new StepStalled(gap);
    await new Promise((resolve) => setTimeout(resolve, limits.pollMs));
  }
}
