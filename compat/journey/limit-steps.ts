import type { Observation } from './observed-state.js';
import type { ClientLabel, ProxiedFrame } from './recording-proxy.js';
import { first, type JourneyStep, type StepContext } from './steps.js';
import { eventType, handmadeFrame, payloadText, sawSinceStep, WIRE } from './wire-view.js';

/** What the host peer's 'limits' op answers (compat/peer/host-peer.ts). */
interface HostPeerLimits {
  readonly limits: { readonly maxCols: number; readonly maxStreamsPerConnection: number };
  readonly spareTerminals: readonly string[];
}

/**
 * Stream ids no client library picks: the proxy subscribes them by hand. The
 * bare stream negotiates nothing, as a client older than every capability would.
 */
const STREAM = { bare: 910, startedByPrimary: [911, 912], startedBySecond: [913, 914, 915], extra: [916, 917, 918] } as const;
const SCROLLBACK_REQUEST = { requestId: 'limits', scrollbackRows: 10 } as const;
/** The identity a Subscribe may carry; no termwire client sends it, embedders do. */
const EMBEDDER = { id: 'journey-embedder', type: 'gate' } as const;

const subscribe = (streamId: number, terminal: string, extra: object = {}) => handmadeFrame(WIRE.opcode.Subscribe, 0, JSON.stringify({ streamId, terminal, ...extra }));

const errorAnswer = (who: ClientLabel, code: string) => (o: Observation, before: Observation) =>
  sawSinceStep(o, before, { client: who, direction: 'hostToClient', opcode: WIRE.opcode.Error, where: (f) => payloadText(f).startsWith(`${code}:`) }, `an Error ${code} on the ${who} client`);

const onBareStream = (o: Observation, before: Observation, opcode: number, where: (f: ProxiedFrame) => boolean, what: string) =>
  sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode, where: (f) => f.streamId === STREAM.bare && where(f) }, what);

function injectAll(inject: StepContext['inject'], who: ClientLabel, frames: readonly Uint8Array[]): void {
  for (const frame of frames) if (!inject(who, frame)) throw new Error(`the ${who} client has no live connection to inject into`);
}

/**
 * Every limit the host enforces on a peer, reached on purpose, and the paths
 * only a client without capabilities or an embedder takes. The host peer runs
 * with small limits and spare terminals, so each refusal costs a few frames.
 * The counts below hold whichever connection started the journey's terminal:
 * each batch sends one frame more than the limit needs when it did not.
 */
export const limitsReached: JourneyStep = {
  name: 'limitsReached',
  needs: { host: ['limits'] },
  act: async ({ host, inject, second, until, before }) => {
    const { limits, spareTerminals } = await host.call<HostPeerLimits>('limits');
    const spare = (i: number) => spareTerminals[i] ?? `spare-${i + 1}`;
    await second();
    // A bare stream on a spare terminal: its snapshot names `source`, a gated frame on it is refused,
    // it asks for scrollback, and asks for a size past the host's limit.
    injectAll(inject, 'primary', [
      subscribe(STREAM.bare, spare(0), { client: EMBEDDER }),
      handmadeFrame(WIRE.opcode.SetOutputPaused, STREAM.bare, JSON.stringify({ paused: true })),
      handmadeFrame(WIRE.opcode.SnapshotRequest, STREAM.bare, JSON.stringify(SCROLLBACK_REQUEST)),
      handmadeFrame(WIRE.opcode.Resize, STREAM.bare, JSON.stringify({ cols: limits.maxCols + 1, rows: 24 })),
    ]);
    // Terminals: the primary connection starts spares until its own limit refuses one, then the second
    // connection until the host's limit does; the second batch waits, so the counts are the same in every run.
    injectAll(inject, 'primary', STREAM.startedByPrimary.map((id, i) => subscribe(id, spare(i + 1))));
    await until((o) => errorAnswer('primary', 'TERMINALS_PER_CONNECTION_LIMIT')(o, before));
    injectAll(inject, 'second', STREAM.startedBySecond.map((id, i) => subscribe(id, spare(i + 3))));
    await until((o) => errorAnswer('second', 'TERMINALS_PER_SERVER_LIMIT')(o, before));
    // Streams: more subscribes to a running terminal than one connection may hold.
    injectAll(inject, 'primary', STREAM.extra.slice(0, limits.maxStreamsPerConnection - 1).map((id) => subscribe(id, spare(0))));
    // Input after the spare exits, on the stream that did not negotiate writeUnavailable.
    injectAll(inject, 'primary', [handmadeFrame(WIRE.opcode.Input, STREAM.bare, 'exit\r')]);
    await until((o) => onBareStream(o, before, WIRE.opcode.Metadata, (f) => eventType(f) === 'exit', "the 'exit' event on the bare stream"));
    injectAll(inject, 'primary', [handmadeFrame(WIRE.opcode.Input, STREAM.bare, 'after exit\r')]);
  },
  done: (o, before) =>
    first(
      errorAnswer('primary', 'UNGATED_FRAME')(o, before),
      errorAnswer('primary', 'RESIZE_TOO_LARGE')(o, before),
      errorAnswer('primary', 'TERMINALS_PER_CONNECTION_LIMIT')(o, before),
      errorAnswer('second', 'TERMINALS_PER_SERVER_LIMIT')(o, before),
      errorAnswer('primary', 'TOO_MANY_STREAMS')(o, before),
      errorAnswer('primary', 'WRITE_UNAVAILABLE')(o, before),
      onBareStream(o, before, WIRE.opcode.SnapshotStart, (f) => payloadText(f).includes(`"${SCROLLBACK_REQUEST.requestId}"`), "the snapshot answering the bare stream's scrollback request"),
    ),
};
