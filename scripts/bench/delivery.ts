/**
 * Delivery section: how fast the exactly-once model test runs, and what
 * sequenced input (journal + ledger + InputAck) costs against unsequenced
 * input over the same SIMULATED in-process link, side by side.
 */
import { TerminalClient } from '../../src/client/client.js';
import { InputJournal } from '../../src/delivery/journal.js';
import { InputLedger } from '../../src/delivery/ledger.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { ManualScheduler } from '../../test/client/manual-scheduler.js';
import { ModelTerminal } from '../../test/delivery/model-terminal.js';
import { runSchedule } from '../../test/delivery/model-schedule.js';
import { seededRandom, SimNet } from '../../test/delivery/sim-net.js';
import { compare, median } from './lib/measure.js';
import type { Row } from './lib/row.js';

export const name = 'delivery';

/** Issue 11's goal for the full-stack model test (2000 × 60 steps in at most 6 s). */
const MODEL_TARGET_STEPS_PER_SECOND = 20_000;
const CORE_TARGET_STEPS_PER_SECOND = 100_000;
const MODEL_STEPS = 60;
const MODEL_WARMUP_SCHEDULES = 20;
const MODEL_ROUNDS = 3;
const MODEL_SCHEDULES_PER_ROUND = 100;
const V1_CAPS = { ackOutput: 1, outputPause: 1, writeUnavailable: 1 };

/**
 * The full model test as CI runs it: whole schedules of the real client and
 * host stack, each timed from start to teardown (its 60 steps, then heal,
 * the quiet check and closing), counted as 60 steps as the test counts them.
 * CI runs 2000 in one process, so a short warm-up is left out; the median of
 * a few rounds is reported, with the process's CPU time over all rounds (all
 * threads, GC included) to read it by on a loaded machine. A failing schedule
 * stops the bench: it would be measuring a broken build.
 */
async function fullModelStepsPerSecond(): Promise<{ readonly wall: number; readonly cpu: number }> {
  let seed = 0xbe7c4;
  const next = async (): Promise<void> => {
    const result = await runSchedule(seed++, MODEL_STEPS);
    if (result.failure) throw new Error(`model schedule ${result.seed} failed: the bench is measuring a broken build: ${result.failure}`);
  };
  for (let i = 0; i < MODEL_WARMUP_SCHEDULES; i++) await next();
  const rounds: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let round = 0; round < MODEL_ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < MODEL_SCHEDULES_PER_ROUND; i++) await next();
    rounds.push((MODEL_SCHEDULES_PER_ROUND * MODEL_STEPS) / ((performance.now() - start) / 1000));
  }
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return { wall: median(rounds), cpu: (MODEL_ROUNDS * MODEL_SCHEDULES_PER_ROUND * MODEL_STEPS) / cpuSeconds };
}

/**
 * The core model: the real journal and ledger alone over a seeded lossy,
 * reordering-free, delaying queue (2% frame and ack loss, 5% refused writes), checked for exactly-once at the end. No host
 * or client stack, so it measures the go-back-N logic the model exercises.
 */
function coreModelStepsPerSecond(): number {
  const steps = 400_000;
  const random = seededRandom(7);
  const clock = new ManualScheduler();
  const ledger = new InputLedger('bench');
  const session = ledger.open('t', 's');
  const wire: Array<[number, string]> = [];
  const acks: Array<[number, 'applied' | 'deliveryUnknown' | 'resend']> = [];
  const written: string[] = [];
  const journal = new InputJournal(clock, { notice: () => {} });
  journal.attach((seq, data) => wire.push([seq, data]), 'bench');
  let typed = 0;
  const start = performance.now();
  for (let i = 0; i < steps; i++) {
    const r = random();
    if (r < 0.3) journal.append(`k${++typed}`);
    else if (r < 0.6) {
      // One step delivers what is in flight, as the model test's pump does.
      for (const frame of wire.splice(0)) {
        if (random() < 0.02) continue;
        const reply = ledger.judge(session, frame[0], frame[1], (d) => (random() < 0.05 ? 'refused' : (written.push(d), 'written')));
        if (random() > 0.02) acks.push([reply.seq, reply.status]);
      }
    } else if (r < 0.9) {
      const ack = acks.pop(); // the newest ack: cumulative, so older ones add nothing
      acks.length = 0;
      if (ack) journal.onAck(ack[0], ack[1]);
    } else clock.advance(1000);
  }
  const seconds = (performance.now() - start) / 1000;
  if (written.some((d, i) => d !== `k${i + 1}`)) throw new Error('core model broke exactly-once: the bench is measuring a broken build');
  return steps / seconds;
}

async function inputPath(sequenced: boolean): Promise<() => void> {
  const net = new SimNet(() => 0.5, () => false);
  const terminal = new ModelTerminal();
  const host = new HostRuntime({ terminals: () => terminal, ledgerId: 'bench' });
  const client = new TerminalClient({
    scheduler: new ManualScheduler(),
    ...(sequenced ? {} : { capabilities: V1_CAPS }),
    connect: async () => {
      const c = net.open();
      host.accept(c.host);
      return c.client;
    },
  });
  const stream = client.subscribe('t');
  client.start();
  while (stream.state !== 'live') {
    net.pump();
    await new Promise((r) => setTimeout(r, 1));
  }
  if (stream.inputState.sequenced !== sequenced) throw new Error('bench setup did not negotiate as intended');
  let n = 0;
  return () => {
    stream.write(`k${++n};`);
    net.pump();
    if (terminal.writes.length > 10_000) terminal.writes.length = 0;
  };
}

export async function run(): Promise<Row[]> {
  const full = await fullModelStepsPerSecond();
  const core = coreModelStepsPerSecond();
  const [sequenced, unsequenced] = compare([await inputPath(true), await inputPath(false)]);
  return [
    { section: name, name: 'model test, full stack', value: full.wall, unit: ' steps/s', ratio: full.wall / MODEL_TARGET_STEPS_PER_SECOND, baseline: '20k steps/s target (issue 11)', target: 1, note: `real client+host, whole schedules, median of ${MODEL_ROUNDS} × ${MODEL_SCHEDULES_PER_ROUND}` },
    { section: name, name: 'model test, full stack, per CPU second', value: full.cpu, unit: ' steps/s', note: 'same rounds over process CPU time (all threads): the figure to read a loaded machine by' },
    { section: name, name: 'model, journal+ledger core', value: core, unit: ' steps/s', ratio: core / CORE_TARGET_STEPS_PER_SECOND, baseline: '100k steps/s target', target: 1 },
    { section: name, name: 'sequenced input (journal+ledger+InputAck)', value: sequenced!, unit: ' inputs/s', ratio: sequenced! / unsequenced!, baseline: 'unsequenced input, same link' },
  ];
}
