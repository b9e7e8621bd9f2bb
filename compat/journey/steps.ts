import type { ClientPeerOp, HostPeerOp } from '../peer/peer-ops.js';
import type { StepName } from '../recording.js';
import type { JourneyFlow } from './journey-flow.js';
import type { ClientObservation, Observation } from './observed-state.js';
import type { Peer } from './peer-process.js';
import type { ProbeConnection } from './probe-connection.js';
import type { ClientProcessLabel, DropMode } from './recording-proxy.js';
import { eventType, resumedOrRepainted, sawSinceStep, snapshotRequestsAnswered, WIRE } from './wire-view.js';

/** The script terminal's banner: the initial snapshot must show it. */
export const SCRIPT_BANNER = 'termwire script terminal';
export const JOURNEY_TERMINAL = 'main';
export const JOURNEY_VIEWPORT = { cols: 80, rows: 24 } as const;
/** The second client's window differs, so its Subscribe resizes the terminal and every client gets a Resized, old ones too. */
export const SECOND_CLIENT_VIEWPORT = { cols: 96, rows: 26 } as const;
/**
 * Text the journey types and emits carries characters of 2, 3 and 4 UTF-8
 * bytes (1, 1 and 2 UTF-16 units), all one column wide in xterm: a peer that
 * counts characters where the wire counts bytes, or splits a character across
 * frames, then shows in the frames. Wide characters are left out: their width
 * tables may differ between xterm versions.
 */
export const MULTIBYTE = 'é─𝐀';
export const TYPED_BEFORE_DROP = `echo one ${MULTIBYTE}\r`;
export const TYPED_AFTER_RECONNECT = `echo two ${MULTIBYTE}\r`;
/** Typed after the link went silent, before the client can know: exactly-once input must still deliver it once. */
export const TYPED_DURING_DROP = `echo dark ${MULTIBYTE}\r`;

/**
 * Erases the rows below the cursor in a background colour: blank rows that
 * carry only a background, which a snapshot writes in its repaint form
 * (snapshotRepaint) and not in the form released clients draw, so the screen
 * a snapshot draws tells the two apart.
 */
export const BACKGROUND_BELOW = '\x1b[44m\x1b[J\x1b[0m';

/** Shown while the client is hidden: the reveal's snapshot must show it. */
export const HIDDEN_LINE = 'while hidden';
export const HIDDEN_OUTPUT = `${HIDDEN_LINE}\r\n${BACKGROUND_BELOW}`;

/** One line of live output, numbered so the screen shows which one arrived. */
export const liveOutputLine = (n: number) => `live output ${n} ${MULTIBYTE}\r\n`;

/** The control ops both builds' peers answer in this gate run, by role. */
export interface DrivableOps {
  readonly client: ReadonlySet<string>;
  readonly host: ReadonlySet<string>;
}

export interface StepContext {
  readonly client: Peer;
  readonly host: Peer;
  /** The second client, attached to the same terminal through the proxy; started by the first step that asks. */
  second(): Promise<Peer>;
  /** Stops the host and starts the pairing's next host build in its place (a restart or an upgrade); the client stays, and types `typedWhileDown` while no host runs. Only in restart pairings. */
  restartHost(typedWhileDown?: string): Promise<void>;
  /** Proxy faults. */
  drop(mode: DropMode): void;
  dropSequencedInput(client: ClientProcessLabel, passBefore: number): void;
  duplicateSequencedInput(client: ClientProcessLabel, passBefore: number): void;
  /** The host's next InputAck to the client never arrives. */
  loseInputAck(client: ClientProcessLabel): void;
  /** Holds the client's Acks until releaseAcks (the host gets no credit back meanwhile). */
  withholdAcks(client: ClientProcessLabel): void;
  releaseAcks(): number;
  /** Holds every frame the host sends the client (pings and pongs aside) until releaseToClient; heldToClient lists them. */
  holdToClient(client: ClientProcessLabel): void;
  heldToClient(): readonly Uint8Array[];
  releaseToClient(): number;
  inject(client: ClientProcessLabel, bytes: Uint8Array): boolean;
  /** The proxy's own connection to the host, opened by the first step that asks (WebSocket journeys only). */
  probe(): Promise<ProbeConnection>;
  /** The probe asks the host to upgrade a connection with a wrong token; the answer lands in the observation's probeEnds. */
  probeWrongToken(): Promise<void>;
  /** Waits until `missing` returns undefined; a stall names what it still returned. */
  until(missing: (o: Observation) => string | undefined): Promise<void>;
  /** What the peers and the proxy see now. */
  observe(): Promise<Observation>;
  /** What the peers saw before this step began, for "more than before" barriers. */
  readonly before: Observation;
  readonly ops: DrivableOps;
  /** The output sizes of the run's steps (journey-flow.ts). */
  readonly flow: JourneyFlow;
}

/**
 * One step of the vocabulary the journeys draw from: self-contained, with its
 * act and the barrier that ends it, so a script or a seeded schedule can use it.
 */
export interface JourneyStep {
  readonly name: StepName;
  /** Peer ops beyond protocol 1's: where either build's peers lack one, the gate run skips the step in all four pairings. */
  readonly needs?: { readonly client?: readonly ClientPeerOp[]; readonly host?: readonly HostPeerOp[] };
  /** Why this pairing cannot walk the step (what it negotiated), or undefined; a skipped step says so. */
  readonly notApplicable?: (before: Observation) => string | undefined;
  /** What the step types that must reach the terminal: exactly once, or at most once when typed into a dead link without exactly-once input. */
  readonly typed?: string;
  readonly typedAtMostOnce?: boolean;
  /**
   * A reconnect begun in this step waits at the proxy until a step without
   * this flag begins: input typed meanwhile is typed while the client knows
   * the link is down, and reaches the terminal in a later step.
   */
  readonly holdsReconnect?: true;
  /** What this step types reaches the terminal only after the held reconnect: every later step waits for it until it has. */
  readonly heldUntilReconnect?: true;
  readonly act?: (ctx: StepContext) => Promise<void>;
  /** The step is done when this returns undefined; otherwise it says what is missing. */
  readonly done: (o: Observation, before: Observation, flow: JourneyFlow) => string | undefined;
}

/** A step whose outcome cannot be judged in this walk (the machine took longer than the promise it checks, a limit past what the step sends); recorded as skipped with why. */
export class StepNotJudged extends Error {}

export const screenShows = (o: Observation, text: string) => (o.client.screen.includes(text) ? undefined : `client screen showing '${text.trim()}'`);
export const terminalGot = (o: Observation, text: string) => (o.host.inputLog.includes(text) ? undefined : `terminal input containing ${JSON.stringify(text)}`);
export const first = (...checks: Array<string | undefined>) => checks.find((c) => c !== undefined);
export const sameScreens = (o: Observation) => (o.client.screen === o.host.screen ? undefined : 'the client screen equal to the host screen');
/** The client negotiated this capability (its echo on `subscribed`). */
export const negotiates = (c: ClientObservation | undefined, name: string) => (c?.negotiated?.[name] ?? 0) >= 1;
/** The host confirmed an Unsubscribe of the primary client since the step began. */
export const unsubscribedSinceStep = (o: Observation, before: Observation) =>
  sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.Metadata, where: (f) => eventType(f) === 'unsubscribed' }, 'the unsubscribed confirmation to the client');

/** A new stream's subscribed event and snapshot arrived since the step began. */
export const resubscribed = (o: Observation, before: Observation) =>
  first(o.client.subscribedCount > before.client.subscribedCount ? undefined : 'a subscribed event for the new stream', o.client.snapshots.length > before.client.snapshots.length ? undefined : "the new stream's snapshot");

/** The client unsubscribes its stream, waits for the host to confirm, and subscribes to the journey's terminal again. */
export async function detachAndSubscribeAgain({ client, until, before }: Pick<StepContext, 'client' | 'until' | 'before'>): Promise<void> {
  await client.call('unsubscribe');
  await until((o) => unsubscribedSinceStep(o, before));
  await client.call('subscribe', { terminal: JOURNEY_TERMINAL, ...JOURNEY_VIEWPORT });
}

/**
 * A reveal is done when a snapshot has repainted the stream with what was
 * printed while hidden; a request the client did send must also be answered,
 * so its frames stay in this step. Whether the client asks is its own choice.
 */
export const revealed =
  (hiddenText: string) =>
  (o: Observation, before: Observation): string | undefined =>
    first(o.client.snapshots.length > before.client.snapshots.length ? undefined : 'a snapshot repainting the revealed stream', screenShows(o, hiddenText), snapshotRequestsAnswered(o, before));

/**
 * Both passes subscribe the same way. The step ends on the whole answer, the
 * subscribed event and the snapshot after it: ended on the event alone, the
 * snapshot's frames fell in this step or the next by how soon the host
 * serialised it, and a busy machine moved them between walks (a false
 * FRAME_SEQUENCE_CHANGED in both skews).
 */
export const SUBSCRIBE_STEP: JourneyStep = {
  name: 'subscribe',
  act: async ({ client }) => void (await client.call('subscribe', { terminal: JOURNEY_TERMINAL, ...JOURNEY_VIEWPORT })),
  done: (o) => first(o.client.subscribedCount >= 1 ? undefined : 'a subscribed event on the client', o.client.snapshots.length >= 1 ? undefined : 'the snapshot answering the Subscribe'),
};

/** The link goes silent, and `typedInTheDark` is typed before the client can know. */
export function dropStep(typedInTheDark: string): JourneyStep {
  return {
    name: 'drop',
    typed: typedInTheDark,
    typedAtMostOnce: true,
    holdsReconnect: true,
    act: async ({ drop, client }) => {
      drop('silent');
      await client.call('write', { data: typedInTheDark });
    },
    done: (o, before) => (o.client.disconnects > before.client.disconnects ? undefined : 'the client noticing the dead link'),
  };
}

/** The core steps, from subscribe to input after a reconnect, and the unsubscribe confirmation. */
export const CORE_STEPS = {
  subscribe: SUBSCRIBE_STEP,
  initialSnapshot: {
    name: 'initialSnapshot',
    done: (o) => first(o.client.snapshots.length >= 1 ? undefined : 'an initial snapshot on the client', screenShows(o, SCRIPT_BANNER)),
  },
  input: {
    name: 'input',
    typed: TYPED_BEFORE_DROP,
    act: async ({ client }) => void (await client.call('write', { data: TYPED_BEFORE_DROP })),
    done: (o) => first(terminalGot(o, TYPED_BEFORE_DROP), screenShows(o, `ran: ${TYPED_BEFORE_DROP.trim()}`)),
  },
  liveOutput: {
    name: 'liveOutput',
    act: async ({ host }) => void (await host.call('emit', { text: liveOutputLine(1) })),
    done: (o) => screenShows(o, liveOutputLine(1).trim()),
  },
  hideReveal: {
    name: 'hideReveal',
    act: async ({ client, host, until }) => {
      await client.call('hide');
      // Only a client that negotiated outputPause pauses; wait for the host to have seen it so frames stay byte-stable.
      await until((o) => (o.client.negotiated?.outputPause && o.host.pausedStreams < 1 ? 'the host to pause the hidden stream' : undefined));
      await host.call('emit', { text: HIDDEN_OUTPUT });
      await client.call('reveal');
    },
    done: revealed(HIDDEN_LINE),
  },
  drop: dropStep(TYPED_DURING_DROP),
  resubscribe: {
    name: 'resubscribe',
    done: (o, before) =>
      first(
        o.client.subscribedCount > before.client.subscribedCount ? undefined : 'a subscribed event on the new connection',
        // Where outputResume was negotiated the host resumes the output from where the client lost it, without a snapshot.
        resumedOrRepainted(o, before, 'the reconnect snapshot, or a subscribed event saying the output resumed'),
        // With exactly-once input the journal resends what was typed into the dead link on the new stream; the step
        // ends on the host's InputAck for it, so that frame belongs to this step in every run, not to whichever wins a race.
        o.client.negotiated?.inputAck
          ? sawSinceStep(o, before, { client: 'primary', direction: 'hostToClient', opcode: WIRE.opcode.InputAck }, "the InputAck answering the journal's resend of what was typed into the dead link")
          : undefined,
      ),
  },
  inputAfterReconnect: {
    name: 'inputAfterReconnect',
    typed: TYPED_AFTER_RECONNECT,
    act: async ({ client }) => void (await client.call('write', { data: TYPED_AFTER_RECONNECT })),
    done: (o) =>
      first(
        terminalGot(o, TYPED_AFTER_RECONNECT),
        screenShows(o, `ran: ${TYPED_AFTER_RECONNECT.trim()}`),
        // Where exactly-once input was negotiated, what was typed into the dead link arrives too.
        o.client.negotiated?.inputAck ? terminalGot(o, TYPED_DURING_DROP) : undefined,
      ),
  },
  unsubscribe: {
    name: 'unsubscribe',
    act: async ({ client }) => void (await client.call('unsubscribe')),
    // Read from the wire: a peer's `unsubscribed` flag stays set from an earlier unsubscribe (reattach).
    done: (o, before) => unsubscribedSinceStep(o, before),
  },
} satisfies Partial<Record<StepName, JourneyStep>>;
