import { ModelWorld, type Unit } from './model-world.js';

/** One schedule's outcome: the readable steps, and what went wrong (undefined when the invariant held). */
export interface ScheduleResult {
  readonly seed: number;
  readonly steps: string[];
  readonly failure: string | undefined;
  readonly stats: { inputs: number; restarts: number; notices: number };
}

type Step = (w: ModelWorld) => string | Promise<string>;

// Weighted actions. Typing and delivery dominate, as in life; every fault of the issue is here.
const ACTIONS: ReadonlyArray<readonly [number, Step]> = [
  [26, (w) => w.type()],
  [3, (w) => w.paste()],
  [3, (w) => w.cancelPaste()],
  [14, async (w) => (await w.settle(), 'deliver')],
  [12, (w) => w.advance(50 + Math.floor(w.random() * 6000))],
  [4, (w) => w.setLoss(w.net.faults.loss > 0 ? 0 : 0.3)],
  [3, (w) => w.setDuplicate(w.net.faults.duplicate > 0 ? 0 : 0.3)],
  [3, (w) => w.blackHole()],
  [4, (w) => w.livenessFires()],
  [3, (w) => w.lateArrival()],
  [2, (w) => w.replaceConnection()],
  [2, (w) => w.setUnreachable(!w.unreachable)],
  [1.5, (w) => w.restartHost()],
  [3, (w) => w.writeFault('refuse', 1 + Math.floor(w.random() * 3))],
  [1, (w) => w.writeFault('unknownLanded')],
  [1, (w) => w.writeFault('unknownLost')],
];
const TOTAL_WEIGHT = ACTIONS.reduce((sum, [w]) => sum + w, 0);

function pick(random: () => number): Step {
  let r = random() * TOTAL_WEIGHT;
  for (const [weight, step] of ACTIONS) {
    r -= weight;
    if (r < 0) return step;
  }
  return ACTIONS[0]![1];
}

/** Runs one seeded schedule of `length` steps, heals the network, and checks the invariant. */
export async function runSchedule(seed: number, length: number): Promise<ScheduleResult> {
  const w = new ModelWorld(seed);
  const steps: string[] = [];
  await w.settle();
  for (let i = 0; i < length; i++) steps.push(await pick(w.random)(w));
  const failure = (await heal(w, steps)) ?? checkInvariant(w) ?? (await checkQuiet(w));
  await w.close();
  return { seed, steps, failure, stats: { inputs: w.units.length, restarts: w.restarts - 1, notices: w.notices.length } };
}

/** The link turns healthy and stays so; everything must settle within a bounded virtual time. */
async function heal(w: ModelWorld, steps: string[]): Promise<string | undefined> {
  steps.push('--- heal: no loss, no duplicates, host reachable, writes succeed ---');
  w.setLoss(0);
  w.setDuplicate(0);
  w.setUnreachable(false);
  w.terminal.faults.length = 0;
  for (let i = 0; i < 600; i++) {
    w.livenessFires();
    await w.settle();
    if (w.stream.state === 'live' && w.stream.inputState.sequenced && w.journal.unackedCount === 0) return undefined;
    await w.advance(500);
  }
  return `did not settle within 300 s of healthy virtual time: stream ${w.stream.state}, ${w.journal.unackedCount} unacked, acked ${w.journal.ackedSeq}`;
}

/** Resends stop once the link is healthy: 60 s more of virtual time sends no Input and arms no timer. */
async function checkQuiet(w: ModelWorld): Promise<string | undefined> {
  const before = w.net.inputFramesSent;
  for (let i = 0; i < 12; i++) await w.advance(5_000);
  if (w.net.inputFramesSent !== before) return `resends did not stop: ${w.net.inputFramesSent - before} Input frames in 60 s of healthy idle time`;
  if (w.journal.timersArmed) return 'a resend or stall timer is still armed after everything was acked';
  return undefined;
}

/**
 * The invariant: the terminal's writes are the expected inputs in order, each
 * once; an input may be missing only if it is optional (withdrawn, or reported
 * dropped or delivery-unknown, or a write the terminal lost on an unknown outcome).
 */
export function checkInvariant(w: ModelWorld): string | undefined {
  const writes = w.terminal.writes;
  const units: Unit[] = w.units.map((u) => ({ data: u.data, optional: u.optional || w.terminal.lostUnknown.has(u.data) }));
  let i = 0;
  for (let j = 0; j < units.length; j++) {
    const unit = units[j]!;
    if (writes[i] === unit.data) i++;
    else if (!unit.optional) return `input #${j} ${show(unit.data)} missing or out of order: terminal write #${i} is ${show(writes[i])}`;
  }
  if (i < writes.length) return `terminal write #${i} ${show(writes[i])} is a duplicate, reordered, or never typed`;
  if (w.restarts === 1 && w.notices.some((n) => n.code === 'LEDGER_CHANGED')) return 'LEDGER_CHANGED without a host restart';
  if (w.unknownFaults === 0 && w.notices.some((n) => n.code === 'DELIVERY_UNKNOWN')) return 'DELIVERY_UNKNOWN without an unknown write';
  return undefined;
}

function show(data: string | undefined): string {
  if (data === undefined) return '(none)';
  return JSON.stringify(data.length > 40 ? `${data.slice(0, 40)}…(${data.length})` : data);
}
