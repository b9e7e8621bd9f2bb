import type { Observation } from './observed-state.js';
import type { ClientLabel, ClientProcessLabel, ProxiedFrame } from './recording-proxy.js';
import { first, type JourneyStep, type StepContext } from './steps.js';
import { eventType, handmadeFrame, payloadText, sawErrorSinceStep, sawSinceStep, WIRE } from './wire-view.js';

/** What the host peer's 'limits' op answers (compat/peer/host-peer.ts). */
export interface HostPeerLimits {
  readonly limits: { readonly maxCols: number; readonly maxStreamsPerConnection: number; readonly maxErrorRepliesPerSecond?: number; readonly maxSnapshotRequestsPerSecond?: number };
  readonly spareTerminals: readonly string[];
}

/**
 * Stream ids no client library picks: the proxy subscribes them by hand. The
 * bare stream negotiates nothing, as a client older than every capability would.
 */
const STREAM = { bare: 910, startedByPrimary: [911, 912], startedBySecond: [913, 914, 915], extra: [916, 917, 918] } as const;
const SCROLLBACK_REQUEST = { requestId: 'limits', scrollbackRows: 10 } as const;
/** Sent with the scrollback request, before the host can answer it: each request still gets its own answer. */
const SECOND_REQUEST = { requestId: 'limits-again' } as const;
/** The identity a Subscribe may carry; no termwire client sends it, embedders do. */
const EMBEDDER = { id: 'journey-embedder', type: 'gate' } as const;

const subscribe = (streamId: number, terminal: string, extra: object = {}) => handmadeFrame(WIRE.opcode.Subscribe, 0, JSON.stringify({ streamId, terminal, ...extra }));

const errorAnswer = (who: ClientLabel, code: string) => (o: Observation, before: Observation) => sawErrorSinceStep(o, before, who, code, `an Error ${code} on the ${who} client`);

/** A host frame to `who` on `streamId`, with one of `opcodes`, since the wire held `from` frames. */
export const answeredSince = (o: Observation, from: number, who: ClientLabel, streamId: number, opcodes: readonly number[], where: (f: ProxiedFrame) => boolean = () => true) =>
  o.wire.slice(from).some((f) => f.client === who && f.direction === 'hostToClient' && f.streamId === streamId && opcodes.includes(f.opcode) && where(f));

/**
 * Injects one frame as if `who` had sent it, and waits for the host's answer on
 * that stream. One at a time: the host answers a Subscribe after its screen
 * settles but refuses at once, so frames sent together would come back in an
 * order that depends on timing, and the frame comparison would see it.
 */
async function exchange(ctx: StepContext, who: ClientProcessLabel, frame: Uint8Array, answer: { streamId: number; opcodes: readonly number[]; where?: (f: ProxiedFrame) => boolean }, what: string): Promise<void> {
  const from = (await ctx.observe()).wireCount;
  if (!ctx.inject(who, frame)) throw new Error(`the ${who} client has no live connection to inject into`);
  await ctx.until((o) => (answeredSince(o, from, who, answer.streamId, answer.opcodes, answer.where) ? undefined : what));
}

/** Snapshot requests written in one turn of the event loop, so none is answered before the last is sent; waits for every answer. */
async function requestsTogether(ctx: StepContext, requests: ReadonlyArray<{ readonly requestId: string }>): Promise<void> {
  const from = (await ctx.observe()).wireCount;
  for (const r of requests) if (!ctx.inject('primary', handmadeFrame(WIRE.opcode.SnapshotRequest, STREAM.bare, JSON.stringify(r)))) throw new Error('the primary client has no live connection to inject into');
  for (const r of requests) await ctx.until((o) => (answeredSince(o, from, 'primary', STREAM.bare, [WIRE.opcode.SnapshotStart], (f) => payloadText(f).includes(`"${r.requestId}"`)) ? undefined : `the snapshot answering request '${r.requestId}'`));
  await ctx.until((o) => (o.wire.slice(from).filter((f) => f.client === 'primary' && f.streamId === STREAM.bare && f.opcode === WIRE.opcode.SnapshotEnd).length >= requests.length ? undefined : 'the end of every answering snapshot'));
}

/** A Subscribe is answered by the end of its snapshot, or refused by an Error. */
const SUBSCRIBE_ANSWERS = [WIRE.opcode.SnapshotEnd, WIRE.opcode.Error] as const;
const subscribeExchange = (ctx: StepContext, who: ClientProcessLabel, streamId: number, terminal: string, extra?: object) =>
  exchange(ctx, who, subscribe(streamId, terminal, extra), { streamId, opcodes: SUBSCRIBE_ANSWERS }, `the host's answer to the Subscribe of stream ${streamId} to '${terminal}' on the ${who} client`);
const errorExchange = (ctx: StepContext, opcode: number, payload: string, what: string) =>
  exchange(ctx, 'primary', handmadeFrame(opcode, STREAM.bare, payload), { streamId: STREAM.bare, opcodes: [WIRE.opcode.Error] }, what);

/**
 * Every limit the host enforces on a peer, reached on purpose, and the paths
 * only a client without capabilities or an embedder takes. The host peer runs
 * with small limits and spare terminals, so each refusal costs a few frames.
 * The counts hold whichever connection started the journey's terminal: each
 * batch sends one frame more than the limit needs when it did not.
 */
export const limitsReached: JourneyStep = {
  name: 'limitsReached',
  needs: { host: ['limits'] },
  act: async (ctx) => {
    const { limits, spareTerminals } = await ctx.host.call<HostPeerLimits>('limits');
    const spare = (i: number) => spareTerminals[i] ?? `spare-${i + 1}`;
    await ctx.second();
    // A bare stream on a spare terminal: its snapshot names `source`, a gated frame on it is refused,
    // it asks for scrollback and for another snapshot at once, and for a size past the host's limit.
    await subscribeExchange(ctx, 'primary', STREAM.bare, spare(0), { client: EMBEDDER });
    await errorExchange(ctx, WIRE.opcode.SetOutputPaused, JSON.stringify({ paused: true }), 'an Error refusing the ungated SetOutputPaused');
    await requestsTogether(ctx, [SCROLLBACK_REQUEST, SECOND_REQUEST]);
    await errorExchange(ctx, WIRE.opcode.Resize, JSON.stringify({ cols: limits.maxCols + 1, rows: 24 }), 'an Error refusing the Resize past maxCols');
    // Terminals: the primary connection starts spares until its own limit refuses one, then the second connection until the host's does.
    for (const [i, id] of STREAM.startedByPrimary.entries()) await subscribeExchange(ctx, 'primary', id, spare(i + 1));
    for (const [i, id] of STREAM.startedBySecond.entries()) await subscribeExchange(ctx, 'second', id, spare(i + 3));
    // Streams: more subscribes to a running terminal than one connection may hold.
    for (const id of STREAM.extra.slice(0, limits.maxStreamsPerConnection - 1)) await subscribeExchange(ctx, 'primary', id, spare(0));
    // Input after the spare exits, on the stream that did not negotiate writeUnavailable.
    await exchange(ctx, 'primary', handmadeFrame(WIRE.opcode.Input, STREAM.bare, 'exit\r'), { streamId: STREAM.bare, opcodes: [WIRE.opcode.Metadata], where: (f) => eventType(f) === 'exit' }, "the 'exit' event on the bare stream");
    await errorExchange(ctx, WIRE.opcode.Input, 'after exit\r', 'an Error answering input after exit');
  },
  done: (o, before) =>
    first(
      errorAnswer('primary', 'UNGATED_FRAME')(o, before),
      errorAnswer('primary', 'RESIZE_TOO_LARGE')(o, before),
      errorAnswer('primary', 'TERMINALS_PER_CONNECTION_LIMIT')(o, before),
      errorAnswer('second', 'TERMINALS_PER_SERVER_LIMIT')(o, before),
      errorAnswer('primary', 'TOO_MANY_STREAMS')(o, before),
      errorAnswer('primary', 'WRITE_UNAVAILABLE')(o, before),
      sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.SnapshotStart, where: (f) => f.streamId === STREAM.bare && payloadText(f).includes(`"${SCROLLBACK_REQUEST.requestId}"`) }, "the snapshot answering the bare stream's scrollback request"),
    ),
};
