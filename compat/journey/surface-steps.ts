import type { ClientObservation, Observation } from './observed-state.js';
import { ignoredOutputStep, overflowStep, twoStreamsStep } from './credit-steps.js';
import { screenfulsThenMarker } from './screenfuls.js';
import { detachAndSubscribeAgain, first, HIDDEN_LINE, JOURNEY_TERMINAL, JOURNEY_VIEWPORT, type JourneyStep, MULTIBYTE, negotiates, resubscribed, sameScreens, SCRIPT_BANNER, screenShows, terminalGot, unsubscribedSinceStep } from './steps.js';
import { eventType, handmadeFrame, inputAckFlag, inputFrame, payloadText, sawErrorSinceStep, sawSinceStep, WIRE } from './wire-view.js';

export const JOURNEY_TITLE = 'termwire journey title';
/** Several 16 KiB paste chunks: numbered lines, so the screen shows how far it got. */
export const PASTE_LINES = 1_200; // about 19 KB: two chunks
export const PASTE_TEXT = Array.from({ length: PASTE_LINES }, (_, i) => `paste line ${i} ${MULTIBYTE}\r`).join('');
/** Each of the run's flow.burstEmitBytes (journey-flow.ts): past the first window and within the queue, so it never overflows into a recovery snapshot. */
export const BURST_EMITS = 2;
export const RESEND_INPUTS = ['echo r1\r', 'echo r2\r', 'echo r3\r'] as const;
export const UNCERTAIN_INPUT = 'echo maybe\r';
export const REFUSED_INPUT = 'echo refused once\r';
export const DUPLICATED_INPUTS = ['echo d1\r', 'echo d2\r'] as const;
export const RESIZED_VIEWPORT = { cols: 100, rows: 30 } as const;
export const CLAIMED_VIEWPORT = { cols: 90, rows: 28 } as const;
export const EXIT_INPUT = 'exit\r';
export const INPUT_AFTER_EXIT = 'echo after exit\r';
/** Typed by the late subscriber into the terminal that started after the first one exited. */
export const LATE_INPUT = `echo late ${MULTIBYTE}\r`;

/**
 * One burst: screenfuls painted from the home position, so the screens parse
 * it without scrolling (scrolling, not bytes, is what costs both screens most),
 * then cleared down to one end marker that the barrier waits for. The pages
 * are filled with one-column characters of 1 to 4 UTF-8 bytes, so the frame
 * and chunk boundaries of a burst fall inside characters.
 */
export function burstText(emit: number, bytes: number): string {
  return screenfulsThenMarker(`burst ${emit}`, bytes);
}

/** Lines enough that every later snapshot, scrollback included, spans more than one 48 KiB chunk. */
export const COLOURED_LINES = 48;
export const COLOURED_LINES_END = 'coloured lines end';
/**
 * Lines whose every cell changes colour, so a snapshot's serialisation of
 * them is long: each later snapshot spans several chunks, and a client must
 * join them (and a host send them all, in order) to draw the screen.
 */
export function colouredLinesText(): string {
  const cell = (row: number, col: number) => `\x1b[38;2;${(row * 7 + col * 3) % 256};${(col * 11) % 256};${(row * 13) % 256}m${String.fromCharCode(97 + (col % 26))}`;
  const line = (row: number) => `${Array.from({ length: 79 }, (_, col) => cell(row, col)).join('')}\x1b[0m\r\n`;
  return `${Array.from({ length: COLOURED_LINES }, (_, row) => line(row)).join('')}${COLOURED_LINES_END}\r\n`;
}

const sized = (c: ClientObservation | undefined, who: string, want: { cols: number; rows: number }, before: ClientObservation | undefined) =>
  c && (c.resizedCount ?? 0) > (before?.resizedCount ?? 0) && c.size?.cols === want.cols && c.size?.rows === want.rows ? undefined : `a Resized to ${want.cols}x${want.rows} on the ${who} client`;

/** The steps that walk the rest of the wire surface, by name; script-journey.ts puts them in order. */
export const SURFACE_STEPS = {
  title: {
    name: 'title',
    // The OSC title is followed by text, so the screen says the frames before it were applied.
    act: async ({ host }) => void (await host.call('emit', { text: `\x1b]0;${JOURNEY_TITLE}\x07title set\r\n` })),
    done: (o, before) =>
      first(
        sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.Metadata, where: (f) => eventType(f) === 'title' && payloadText(f).includes(JOURNEY_TITLE) }, `a 'title' Metadata event carrying '${JOURNEY_TITLE}'`),
        screenShows(o, 'title set'),
      ),
  },
  twoStreams: twoStreamsStep(0),
  paste: {
    name: 'paste',
    typed: PASTE_TEXT,
    // Peers of protocol 1 have no paste op: there the same text goes as one write, in all four pairings of the run.
    act: async ({ client, ops }) => void (ops.client.has('paste') ? await client.call('paste', { text: PASTE_TEXT }) : await client.call('write', { data: PASTE_TEXT })),
    done: (o) => first(terminalGot(o, PASTE_TEXT), screenShows(o, `ran: paste line ${PASTE_LINES - 1}`)),
  },
  colouredLines: {
    name: 'colouredLines',
    act: async ({ host }) => void (await host.call('emit', { text: colouredLinesText() })),
    done: (o) => first(screenShows(o, COLOURED_LINES_END), sameScreens(o)),
  },
  burst: {
    name: 'burst',
    act: async ({ host, until, flow }) => {
      for (let emit = 0; emit < BURST_EMITS; emit++) {
        await host.call('emit', { text: burstText(emit, flow.burstEmitBytes) }, 60_000);
        await until((o) => screenShows(o, `burst ${emit} end`));
      }
    },
    done: (o, _before, flow) => {
      const peak = o.host.peakBufferedBytes;
      const bounded = peak === undefined || !negotiates(o.client, 'ackOutput') || peak <= flow.burstBufferBoundBytes;
      return first(sameScreens(o), bounded ? undefined : `the host's buffered bytes within ${flow.burstBufferBoundBytes} (peak ${peak})`);
    },
  },
  inputResend: inputResendStep(RESEND_INPUTS),
  inputDuplicated: inputDuplicatedStep(DUPLICATED_INPUTS),
  deliveryUnknown: deliveryUnknownStep(UNCERTAIN_INPUT),
  writeRefused: writeRefusedStep(REFUSED_INPUT),
  overflowRecovery: overflowStep(0),
  ignoredOutput: ignoredOutputStep(0),
  reattach: {
    name: 'reattach',
    // Detaching is an Unsubscribe, and the terminal outlives it: the same client subscribes again and finds what it printed before.
    // It comes before the drop: a silently dropped connection's stream may still count as a subscriber on the host.
    act: detachAndSubscribeAgain,
    done: (o, before) => first(resubscribed(o, before), screenShows(o, HIDDEN_LINE)),
  },
  secondClient: {
    name: 'secondClient',
    act: async ({ second }) => void (await second()),
    done: (o) =>
      first(
        o.second && o.second.subscribedCount >= 1 && o.second.snapshots.length >= 1 ? undefined : 'a subscribed event and a snapshot on the second client',
        o.second?.screen === o.host.screen ? undefined : 'the second client screen equal to the host screen',
      ),
  },
  resize: {
    name: 'resize',
    needs: { client: ['resize'] },
    act: async ({ client }) => void (await client.call('resize', RESIZED_VIEWPORT)),
    done: (o, before) => first(sized(o.client, 'driving', RESIZED_VIEWPORT, before.client), sized(o.second, 'second', RESIZED_VIEWPORT, before.second)),
  },
  claimViewport: {
    name: 'claimViewport',
    needs: { client: ['claimViewport'] },
    act: async ({ second }) => void (await (await second()).call('claimViewport', CLAIMED_VIEWPORT)),
    done: (o, before) => first(sized(o.second, 'claiming', CLAIMED_VIEWPORT, before.second), sized(o.client, 'driving', CLAIMED_VIEWPORT, before.client)),
  },
  exit: {
    name: 'exit',
    typed: EXIT_INPUT,
    act: async ({ client }) => void (await client.call('write', { data: EXIT_INPUT })),
    done: (o, before) =>
      first(
        ...(['primary', 'second'] as const)
          .filter((who) => who === 'primary' || o.second)
          .map((who) => sawSinceStep(o, before, { client: who, direction: 'hostToClient', opcode: WIRE.opcode.Metadata, where: (f) => eventType(f) === 'exit' }, `the 'exit' event on the ${who} client`)),
      ),
  },
  inputAfterExit: {
    name: 'inputAfterExit',
    // The second client writes, and unsubscribes once answered: an exactly-once client resends
    // refused input on a timer, and those resends must end inside this step.
    act: async ({ second, until, before }) => {
      const writer = await second();
      await writer.call('write', { data: INPUT_AFTER_EXIT });
      await until((o) => answeredAfterExit(o, before));
      await writer.call('unsubscribe');
    },
    done: (o, before) => first(answeredAfterExit(o, before), o.second?.unsubscribed ? undefined : 'the unsubscribed event on the second client'),
  },
  inputAfterUnsubscribe: {
    name: 'inputAfterUnsubscribe',
    // The client library refuses input on a stream it unsubscribed, so the proxy writes the Input itself.
    act: async ({ inject, before }) => {
      const unsubscribe = [...before.wire].reverse().find((f) => f.client === 'primary' && f.direction === 'clientToHost' && f.opcode === WIRE.opcode.Unsubscribe);
      if (!unsubscribe) throw new Error('no Unsubscribe from the primary client to answer');
      if (!inject('primary', inputFrame(unsubscribe.streamId, 'echo late\r'))) throw new Error('the primary client has no live connection to inject into');
    },
    done: (o, before) =>
      sawErrorSinceStep(o, before, 'primary', 'NOT_SUBSCRIBED', 'an Error NOT_SUBSCRIBED answering input on the unsubscribed stream'),
  },
  provokedErrors: {
    name: 'provokedErrors',
    // A well-behaved client library sends none of these, so the proxy writes them; the host's answers are what is compared.
    act: async ({ inject, before }) => {
      const live = liveStreamId(before);
      for (const [opcode, streamId, text] of provocations(live)) if (!inject('primary', handmadeFrame(opcode, streamId, text))) throw new Error('the primary client has no live connection to inject into');
    },
    done: (o, before) =>
      first(
        ...PROVOKED_CODES.map((code) =>
          sawErrorSinceStep(o, before, 'primary', code, `an Error ${code} answering the frame provoking it`),
        ),
      ),
  },
  lateSubscriber: {
    name: 'lateSubscriber',
    // The terminal exited and every viewer left: its name is free, so the driving client's new subscribe starts a
    // fresh instance that takes input. A host peer with the op 'kill' starts a fresh script terminal for a name whose
    // terminal exited; older ones hand back the dead one.
    needs: { host: ['kill'] },
    typed: LATE_INPUT,
    act: async ({ client, until, before }) => {
      await client.call('subscribe', { terminal: JOURNEY_TERMINAL, ...JOURNEY_VIEWPORT });
      await until((o) => lateSubscribed(o, before));
      await client.call('write', { data: LATE_INPUT });
    },
    done: (o, before) => first(lateSubscribed(o, before), terminalGot(o, LATE_INPUT), screenShows(o, `ran: ${LATE_INPUT.trim()}`), sameScreens(o)),
  },
  killed: {
    name: 'killed',
    needs: { host: ['kill'] },
    // Ended by a signal, not by an exit code: the exit event's fields are compared by value like every other frame's.
    act: async ({ host }) => void (await host.call('kill')),
    done: (o, before) =>
      sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.Metadata, where: (f) => eventType(f) === 'exit' }, "the 'exit' event of the killed terminal"),
  },
} satisfies Record<string, JourneyStep>;

/** The late subscription is confirmed and painted with the fresh terminal's banner, not the exited one's screen. */
function lateSubscribed(o: Observation, before: Observation): string | undefined {
  return first(
    o.client.subscribedCount > before.client.subscribedCount ? undefined : 'a subscribed event for the late subscription',
    o.client.snapshots.length > before.client.snapshots.length ? undefined : "the fresh terminal's snapshot",
    o.client.screen.startsWith(SCRIPT_BANNER) ? undefined : "the client's screen starting with the fresh terminal's banner",
  );
}

/** Host error codes the journey provokes on purpose, each with a frame no reference client would send. */
const PROVOKED_CODES = ['UNKNOWN_OPCODE', 'WRONG_DIRECTION', 'BAD_FRAME', 'TERMINAL_NOT_FOUND', 'STREAM_NOT_OWNED', 'STREAM_IN_USE'] as const;
/** Stream ids no journey client subscribes. */
const UNUSED_STREAM = { subscribe: 900, input: 901 } as const;

function provocations(live: number): Array<[opcode: number, streamId: number, text: string]> {
  return [
    [99, 0, ''], // UNKNOWN_OPCODE: a number no build has assigned
    [WIRE.opcode.Output, live, 'from the client'], // WRONG_DIRECTION
    [WIRE.opcode.Resize, live, '{"cols":'], // BAD_FRAME (the decoder's BAD_JSON)
    [WIRE.opcode.Subscribe, 0, JSON.stringify({ streamId: UNUSED_STREAM.subscribe, terminal: 'no-such-terminal' })], // TERMINAL_NOT_FOUND
    [WIRE.opcode.Input, UNUSED_STREAM.input, 'x'], // STREAM_NOT_OWNED
    [WIRE.opcode.Subscribe, 0, JSON.stringify({ streamId: live, terminal: JOURNEY_TERMINAL })], // STREAM_IN_USE
  ];
}

/** The stream the primary client subscribed last, from its Subscribe on the wire. */
function liveStreamId(o: Observation): number {
  const subscribe = [...o.wire].reverse().find((f) => f.client === 'primary' && f.direction === 'clientToHost' && f.opcode === WIRE.opcode.Subscribe && f.fault === undefined);
  const streamId = subscribe ? (JSON.parse(payloadText(subscribe)) as { streamId?: unknown }).streamId : undefined;
  if (typeof streamId !== 'number') throw new Error('no Subscribe from the primary client to find its live stream');
  return streamId;
}

/** Three sequenced inputs with the second lost at the proxy: the host sees a gap and asks for a resend (flag 2). */
export function inputResendStep(inputs: readonly string[]): JourneyStep {
  return {
    name: 'inputResend',
    typed: inputs.join(''),
    notApplicable: (before) => (negotiates(before.client, 'inputAck') ? undefined : 'inputAck not negotiated: unsequenced input the network loses stays lost, there is no resend to provoke'),
    act: async ({ client, dropSequencedInput }) => {
      // The proxy lets the first through and drops the second, so the third arrives after a gap.
      dropSequencedInput('primary', 1);
      for (const data of inputs) await client.call('write', { data });
    },
    done: (o, before) =>
      first(
        sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.InputAck, where: (f) => inputAckFlag(f) === WIRE.inputAckFlag.resend }, 'an InputAck asking for a resend (flag 2) after the gap'),
        terminalGot(o, inputs.join('')),
      ),
  };
}

/** Two sequenced inputs, the first delivered twice by the proxy: the host applies it once and answers the copy too. */
export function inputDuplicatedStep(inputs: readonly string[]): JourneyStep {
  return {
    name: 'inputDuplicated',
    typed: inputs.join(''),
    notApplicable: (before) => (negotiates(before.client, 'inputAck') ? undefined : 'inputAck not negotiated: unsequenced input carries nothing a host could tell a copy by'),
    act: async ({ client, duplicateSequencedInput }) => {
      duplicateSequencedInput('primary', 0);
      for (const data of inputs) await client.call('write', { data });
    },
    done: (o, before) => {
      const since = o.wire.slice(before.wireCount);
      const copy = since.findIndex((f) => f.client === 'primary' && f.direction === 'clientToHost' && f.opcode === WIRE.opcode.Input && f.fault === 'injected');
      const answered = copy >= 0 && since.slice(copy + 1).some((f) => f.client === 'primary' && f.direction === 'hostToClient' && f.opcode === WIRE.opcode.InputAck);
      // The terminal's log must hold the inputs once: the journey's exactly-once rule reads it at the end.
      return first(answered ? undefined : 'an InputAck after the duplicated Input', terminalGot(o, inputs.join('')), screenShows(o, `ran: ${inputs.at(-1)!.trimEnd()}`));
    },
  };
}

/** A write the script terminal reports as of unknown outcome: flag 1 where inputAck is negotiated, never resent. */
export function deliveryUnknownStep(data: string): JourneyStep {
  return {
    name: 'deliveryUnknown',
    needs: { host: ['failNextWrite'] },
    typed: data,
    act: async ({ client, host }) => {
      // The bytes reach the script terminal, but the write reports 'unknown' (a handoff that threw).
      await host.call('failNextWrite', { outcome: 'unknown' });
      await client.call('write', { data });
    },
    done: (o, before) =>
      first(
        terminalGot(o, data),
        screenShows(o, `ran: ${data.trimEnd()}`),
        // Without exactly-once input an uncertain write has no answer on the wire: the step checks it is not resent.
        negotiates(o.client, 'inputAck')
          ? sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.InputAck, where: (f) => inputAckFlag(f) === WIRE.inputAckFlag.deliveryUnknown }, 'an InputAck saying delivery unknown (flag 1)')
          : undefined,
      ),
  };
}

/**
 * A write the script terminal refuses once (`failNextWrite`), as a terminal
 * refuses while its input queue is full: the host asks for a resend (InputAck
 * flag 2) and moves on once the resend is written, so the input arrives
 * exactly once and what is typed after it still flows. Only where inputAck
 * is negotiated: an unsequenced refusal is the exited terminal's answer,
 * which the exit steps walk.
 */
export function writeRefusedStep(data: string): JourneyStep {
  return {
    name: 'writeRefused',
    needs: { host: ['failNextWrite'] },
    typed: data,
    // Exactly once where it is typed: at most once here, and the barrier waits for it to arrive.
    typedAtMostOnce: true,
    act: async ({ client, host, observe }) => {
      if (!negotiates((await observe()).client, 'inputAck')) return;
      await host.call('failNextWrite', { outcome: 'refused' });
      await client.call('write', { data });
    },
    done: (o, before) =>
      negotiates(o.client, 'inputAck')
        ? first(
            sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.InputAck, where: (f) => inputAckFlag(f) === WIRE.inputAckFlag.resend }, 'an InputAck asking for a resend after the refused write (flag 2)'),
            terminalGot(o, data),
            screenShows(o, `ran: ${data.trimEnd()}`),
          )
        : undefined,
  };
}

/** Input after exit is answered by WriteUnavailable where negotiated, else by an Error WRITE_UNAVAILABLE. */
function answeredAfterExit(o: Observation, before: Observation): string | undefined {
  return negotiates(o.second, 'writeUnavailable')
    ? sawSinceStep(o, before, { client: 'second', direction: 'hostToClient', opcode: WIRE.opcode.WriteUnavailable }, 'WriteUnavailable answering input after exit')
    : sawErrorSinceStep(o, before, 'second', 'WRITE_UNAVAILABLE', 'an Error WRITE_UNAVAILABLE answering input after exit');
}
