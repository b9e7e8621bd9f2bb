import { detachAndSubscribeAgain, type JourneyStep, JOURNEY_TERMINAL, JOURNEY_VIEWPORT, MULTIBYTE, negotiates, resubscribed, screenShows, terminalGot, first } from './steps.js';
import type { Observation } from './observed-state.js';
import { eventType, handmadeFrame, payloadText, sawSinceStep, WIRE } from './wire-view.js';

/**
 * Steps that walk states and conditions of the behaviour table
 * (compat/coverage/behaviour-table.ts) no other step reaches: what a hidden
 * stream is sent, and requests that come faster than the host acts on them.
 */

export const TYPED_WHILE_HIDDEN = `echo hidden ${MULTIBYTE}\r`;
export const HIDDEN_TITLE = 'termwire hidden title';
const HIDDEN_VIEWPORT = { cols: 82, rows: 25 } as const;

const sizeIs = (o: Observation, want: { cols: number; rows: number }, what: string) => (o.client.size?.cols === want.cols && o.client.size?.rows === want.rows ? undefined : what);

/**
 * The stream is hidden (paused where outputPause is negotiated) while its
 * program sets a title, the user types and resizes, and the client then
 * unsubscribes it without revealing it. Each waits for its answer before the
 * next, so the frames a hidden stream is sent stay in one order. A new stream
 * on the same terminal then shows what was typed.
 */
export const activityWhileHidden: JourneyStep = {
  name: 'activityWhileHidden',
  needs: { client: ['resize'] },
  typed: TYPED_WHILE_HIDDEN,
  act: async ({ client, host, until, before }) => {
    await client.call('hide');
    await until((o) => (o.client.negotiated?.outputPause && o.host.pausedStreams < 1 ? 'the host to pause the hidden stream' : undefined));
    await host.call('emit', { text: `\x1b]0;${HIDDEN_TITLE}\x07` });
    await until((o) => ((o.client.titles ?? []).includes(HIDDEN_TITLE) ? undefined : `the title '${HIDDEN_TITLE}' on the hidden client`));
    await client.call('write', { data: TYPED_WHILE_HIDDEN });
    await until((o) =>
      first(
        terminalGot(o, TYPED_WHILE_HIDDEN),
        negotiates(o.client, 'inputAck') ? sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.InputAck }, 'the InputAck for what was typed while hidden') : undefined,
      ),
    );
    await client.call('resize', HIDDEN_VIEWPORT);
    await until((o) => sizeIs(o, HIDDEN_VIEWPORT, `a Resized to ${HIDDEN_VIEWPORT.cols}x${HIDDEN_VIEWPORT.rows} on the hidden client`));
    await client.call('resize', JOURNEY_VIEWPORT);
    await until((o) => sizeIs(o, JOURNEY_VIEWPORT, `a Resized back to ${JOURNEY_VIEWPORT.cols}x${JOURNEY_VIEWPORT.rows} on the hidden client`));
    await detachAndSubscribeAgain({ client, until, before });
  },
  done: (o, before) => first(resubscribed(o, before), screenShows(o, `ran: ${TYPED_WHILE_HIDDEN.trim()}`)),
};

/** Sizes sent back to back, inside the host's resize interval: it applies the first and merges the rest, the last one winning. */
export const MERGED_RESIZES = [
  { cols: 90, rows: 30 },
  { cols: 91, rows: 31 },
  { cols: 92, rows: 32 },
] as const;

/** The primary client's stream on the journey's terminal: the last one the host subscribed it to. */
function primaryStream(o: Observation): number | undefined {
  const subscribed = o.wire.filter((f) => f.client === 'primary' && f.direction === 'hostToClient' && f.opcode === WIRE.opcode.Metadata && eventType(f) === 'subscribed' && payloadText(f).includes(`"terminal":"${JOURNEY_TERMINAL}"`));
  return subscribed.at(-1)?.streamId;
}

/**
 * Three Resizes written at once by the proxy, as a window dragged by its
 * corner sends them, so they reach the host together however busy the
 * machine is. The client must end at the last size. It comes long after the
 * last resize, so the host applies the first at once and merges the others in
 * every run.
 */
export const resizesMerged: JourneyStep = {
  name: 'resizesMerged',
  act: async ({ inject, observe }) => {
    const streamId = primaryStream(await observe());
    if (streamId === undefined) throw new Error('the primary client has no stream to resize');
    // In one turn of the event loop, so no answer can cross between them.
    for (const size of MERGED_RESIZES) if (!inject('primary', handmadeFrame(WIRE.opcode.Resize, streamId, JSON.stringify(size)))) throw new Error('the primary client has no live connection to inject into');
  },
  done: (o, before) => {
    const last = MERGED_RESIZES.at(-1)!;
    const what = `a Resized to ${last.cols}x${last.rows} on the client`;
    if (o.client.size !== undefined) return sizeIs(o, last, what);
    // A peer of protocol 1 reports no size: the last Resized the host sent it says where it ended.
    const resized = o.wire.slice(before.wireCount).filter((f) => f.client === 'primary' && f.direction === 'hostToClient' && f.opcode === WIRE.opcode.Resized && f.fault !== 'dropped');
    const got = resized.length > 0 ? (JSON.parse(payloadText(resized.at(-1)!)) as { cols?: number; rows?: number }) : undefined;
    return got?.cols === last.cols && got.rows === last.rows ? undefined : what;
  },
};

export const TYPED_ACK_LOST = `echo ack lost ${MULTIBYTE}\r`;

/**
 * The host applies a write and its InputAck is lost on the way: nothing asks
 * the client to resend, so only its stall timer (delivery.stallResendMs) can
 * settle the journal. It resends; the host, which applied it already, must
 * acknowledge without applying it again.
 */
export const inputAckLost: JourneyStep = {
  name: 'inputAckLost',
  typed: TYPED_ACK_LOST,
  notApplicable: (before) => (negotiates(before.client, 'inputAck') ? undefined : 'inputAck not negotiated: no InputAck to lose'),
  act: async ({ client, loseInputAck }) => {
    loseInputAck('primary');
    await client.call('write', { data: TYPED_ACK_LOST });
  },
  done: (o, before) =>
    first(
      terminalGot(o, TYPED_ACK_LOST),
      sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.InputAck }, 'an InputAck answering the resend after the lost one'),
    ),
};

export const BEHAVIOUR_STEPS = { activityWhileHidden, resizesMerged, inputAckLost } satisfies Record<string, JourneyStep>;
