import type { ClientObservation, Observation } from '../journey/observed-state.js';
import { typedWhileDownStep } from '../journey/down-steps.js';
import { BACKGROUND_BELOW, CORE_STEPS, dropStep, first, type JourneyStep, liveOutputLine, revealed, sameScreens, screenShows, terminalGot } from '../journey/steps.js';
import { overflowStep, twoStreamsStep } from '../journey/credit-steps.js';
import { deliveryUnknownStep, inputDuplicatedStep, inputResendStep, SURFACE_STEPS, writeRefusedStep } from '../journey/surface-steps.js';
import { eventType, payloadText, sawSinceStep, WIRE } from '../journey/wire-view.js';

/**
 * The moves an explore schedule draws from: the journey's steps, each made
 * distinct by the draw's index (its own text, title, size), so a step drawn
 * twice waits for its own output and never passes on what an earlier one left
 * on the screen. Faults at the proxy are moves too.
 */
export interface Move {
  readonly name: string;
  readonly weight: number;
  readonly steps: (n: number) => readonly JourneyStep[];
  /** The behaviour (compat/coverage/behaviour-table.ts keys) the move walks into: a schedule prefers moves whose behaviour it has not drawn yet. */
  readonly reaches: readonly string[];
}

const sizedTo = (c: ClientObservation | undefined, who: string, want: { cols: number; rows: number }, before: ClientObservation | undefined) =>
  c && (c.resizedCount ?? 0) > (before?.resizedCount ?? 0) && c.size?.cols === want.cols && c.size?.rows === want.rows ? undefined : `a Resized to ${want.cols}x${want.rows} on the ${who} client`;

function typeLine(n: number): JourneyStep {
  const data = `echo typed ${n}\r`;
  return { name: 'input', typed: data, act: async ({ client }) => void (await client.call('write', { data })), done: (o) => first(terminalGot(o, data), screenShows(o, `ran: echo typed ${n}`)) };
}

function emitLine(n: number): JourneyStep {
  return { name: 'liveOutput', act: async ({ host }) => void (await host.call('emit', { text: liveOutputLine(n) })), done: (o) => screenShows(o, liveOutputLine(n).trim()) };
}

function retitle(n: number): JourneyStep {
  const title = `explore title ${n}`;
  return {
    name: 'title',
    act: async ({ host }) => void (await host.call('emit', { text: `\x1b]0;${title}\x07titled ${n}\r\n` })),
    done: (o, before) =>
      first(sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.Metadata, where: (f) => eventType(f) === 'title' && payloadText(f).includes(title) }, `a 'title' event carrying '${title}'`), screenShows(o, `titled ${n}`)),
  };
}

/** 1,500 numbered lines, about 30 KB: two 16 KiB paste chunks. */
function paste(n: number): JourneyStep {
  const lines = 1_500;
  const text = Array.from({ length: lines }, (_, i) => `paste ${n} line ${i}\r`).join('');
  return {
    name: 'paste',
    typed: text,
    act: async ({ client, ops }) => void (ops.client.has('paste') ? await client.call('paste', { text }) : await client.call('write', { data: text })),
    done: (o) => first(terminalGot(o, text), screenShows(o, `ran: paste ${n} line ${lines - 1}`)),
  };
}

/** One emit of the run's burst size (journey-flow.ts: past the first stream window and within the queue), in lines of 81 bytes ending on a marker line. */
function burst(n: number): JourneyStep {
  const line = (i: number) => `burst ${n} line ${i} `.padEnd(79, 'x');
  // Made when the step runs: a schedule is drawn whole, and most draws never reach it.
  const text = (bytes: number) => `${Array.from({ length: Math.ceil(bytes / 81) }, (_, i) => line(i)).join('\r\n')}\r\nburst ${n} end\r\n`;
  return { name: 'burst', act: async ({ host, flow }) => void (await host.call('emit', { text: text(flow.burstEmitBytes) }, 60_000)), done: (o) => first(screenShows(o, `burst ${n} end`), sameScreens(o)) };
}

function hideReveal(n: number): JourneyStep {
  const hidden = `while hidden ${n}`;
  return {
    ...CORE_STEPS.hideReveal,
    act: async ({ client, host, until }) => {
      await client.call('hide');
      await until((o) => (o.client.negotiated?.outputPause && o.host.pausedStreams < 1 ? 'the host to pause the hidden stream' : undefined));
      await host.call('emit', { text: `${hidden}\r\n${BACKGROUND_BELOW}` });
      await client.call('reveal');
    },
    done: revealed(hidden),
  };
}

/** The link goes silent with a line typed into the dark; the client notices, is typed into while it waits, reconnects and resubscribes. */
const dropAndResubscribe = (label: string): JourneyStep[] => [dropStep(`echo dark ${label}\r`), typedWhileDownStep(`echo down ${label}\n`), CORE_STEPS.resubscribe];

const lostInput = (n: number) => inputResendStep([1, 2, 3].map((k) => `echo lost ${n}.${k}\r`));
const uncertainWrite = (n: number) => deliveryUnknownStep(`echo maybe ${n}\r`);
const refusedWrite = (n: number) => writeRefusedStep(`echo refused ${n}\r`);
const duplicatedInput = (n: number) => inputDuplicatedStep([1, 2].map((k) => `echo twice ${n}.${k}\r`));

/** Sizes step away from the journey's 80x24 by the draw's index, so every resize really changes the size. */
function resize(n: number): JourneyStep {
  const want = { cols: 81 + n, rows: 25 + (n % 7) };
  return {
    ...SURFACE_STEPS.resize,
    act: async ({ client }) => void (await client.call('resize', want)),
    // Every subscriber sees the Resized: the second client too, once a move has attached it.
    done: (o, before) => first(sizedTo(o.client, 'driving', want, before.client), o.second ? sizedTo(o.second, 'second', want, before.second) : undefined),
  };
}

function claimViewport(n: number): JourneyStep {
  const want = { cols: 70 + n, rows: 20 + (n % 5) };
  return {
    ...SURFACE_STEPS.claimViewport,
    act: async ({ second }) => void (await (await second()).call('claimViewport', want)),
    done: (o, before) => first(sizedTo(o.second, 'claiming', want, before.second), sizedTo(o.client, 'driving', want, before.client)),
  };
}

const DROP_REACHES = ['silent × Input', 'link.silentThenDead', 'link.reconnectSameInstance', 'input.acrossReconnect'];

export const MOVES: readonly Move[] = [
  { name: 'type', weight: 3, steps: (n) => [typeLine(n)], reaches: ['live × Input', 'live × InputAck', 'input.inOrder'] },
  { name: 'output', weight: 2, steps: (n) => [emitLine(n)], reaches: ['live × Output', 'credit.returned'] },
  { name: 'title', weight: 1, steps: (n) => [retitle(n)], reaches: ['live × Metadata:title'] },
  { name: 'paste', weight: 1, steps: (n) => [paste(n)], reaches: ['input.severalFrames'] },
  { name: 'burst', weight: 1, steps: (n) => [burst(n)], reaches: ['live × Output', 'credit.returned'] },
  { name: 'hideReveal', weight: 2, steps: (n) => [hideReveal(n)], reaches: ['live × SetOutputPaused', 'paused × SetOutputPaused', 'live × SnapshotRequest', 'snapshot.answersRequest'] },
  { name: 'drop', weight: 2, steps: (n) => dropAndResubscribe(`${n}`), reaches: DROP_REACHES },
  { name: 'reconnectStorm', weight: 1, steps: (n) => [0, 1, 2].flatMap((k) => dropAndResubscribe(`${n}.${k}`)), reaches: DROP_REACHES },
  { name: 'lostInput', weight: 1, steps: (n) => [lostInput(n)], reaches: ['input.gapped'] },
  { name: 'uncertainWrite', weight: 1, steps: (n) => [uncertainWrite(n)], reaches: ['input.unknown'] },
  { name: 'secondClient', weight: 1, steps: () => [SURFACE_STEPS.secondClient], reaches: ['live × Resized'] },
  { name: 'resize', weight: 1, steps: (n) => [resize(n)], reaches: ['live × Resize', 'live × Resized'] },
  // The second client is attached and subscribed (its own step's barrier) before it claims.
  { name: 'claimViewport', weight: 1, steps: (n) => [SURFACE_STEPS.secondClient, claimViewport(n)], reaches: ['live × ClaimViewport', 'live × Resized'] },
  { name: 'duplicatedInput', weight: 1, steps: (n) => [duplicatedInput(n)], reaches: ['input.duplicated'] },
  { name: 'twoStreams', weight: 1, steps: (n) => [twoStreamsStep(n + 1)], reaches: ['live × Metadata:exit', 'exited × Unsubscribe'] },
  { name: 'overflow', weight: 1, steps: (n) => [overflowStep(n + 1)], reaches: ['credit.overflow'] },
  { name: 'refusedWrite', weight: 1, steps: (n) => [refusedWrite(n)], reaches: ['input.refused'] },
];
