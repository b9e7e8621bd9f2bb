import type { Observation } from './observed-state.js';
import { answeredSince, type HostPeerLimits } from './limit-steps.js';
import { JOURNEY_TERMINAL, type JourneyStep, type StepContext, StepNotJudged } from './steps.js';
import { handmadeFrame, WIRE } from './wire-view.js';

/** A stream id the probe never subscribes: every frame on it earns an Error. */
const NEVER_SUBSCRIBED = 919;
/** Every host before the option was configurable refilled 100 Error replies a second. */
const DEFAULT_ERROR_REPLIES_PER_SECOND = 100;
/**
 * The flood is this many seconds' worth of Error replies: the host closes
 * once it has read one second's worth, and unless reading the rest took it
 * nine seconds more (a machine far busier than any CI runner), the refill
 * cannot keep up. A few KiB, so the margin costs nothing.
 */
const FLOOD_SECONDS = 10;
/** The most frames the probe floods (about 2 MiB): a host whose rate needs more is not judged by this step. */
const FLOOD_MAX_FRAMES = 100_000;
/** The most snapshot requests it floods: each one answered before the close costs the host a snapshot of the journey's terminal. */
const SNAPSHOT_FLOOD_MAX_REQUESTS = 2_000;

/** The stream the probe subscribes to the journey's terminal, to ask for snapshots past the host's rate. */
const SNAPSHOT_FLOOD_STREAM = 920;

const neverSubscribedInput = () => handmadeFrame(WIRE.opcode.Input, NEVER_SUBSCRIBED, 'x');
const snapshotRequest = () => handmadeFrame(WIRE.opcode.SnapshotRequest, SNAPSHOT_FLOOD_STREAM, '{}');
/** A snapshot's last frame: each request is answered by a snapshot of its own, however many chunks it takes. */
const endsASnapshot = (bytes: Uint8Array) => bytes[2] === WIRE.opcode.SnapshotEnd;
const probeEndsSince = (o: Observation, before: Observation) => o.probeEnds.length - before.probeEnds.length;
const probeEnded = (o: Observation, before: Observation) => probeEndsSince(o, before) > 0;

/**
 * What the host does to a peer no client library is: the proxy's own probe
 * connection sends a WebSocket text message (refused with TEXT_MESSAGE, the
 * connection kept), one frame on a stream it never subscribed, and then a
 * flood of such frames, each earning an Error, past maxErrorRepliesPerSecond.
 * The host closes the connection for the limit (1008, ERROR_RATE), or answers
 * every frame if it has no such limit. Then a second probe connection
 * subscribes to the journey's terminal and asks for snapshots past
 * maxSnapshotRequestsPerSecond (1008, SNAPSHOT_RATE). How each connection
 * ended is recorded (ProbeEnd) and compared, in order; the floods' own
 * replies are only counted.
 */
export const limitsClosed: JourneyStep = {
  name: 'limitsClosed',
  needs: { host: ['limits'] },
  act: async (ctx) => {
    const { limits } = await ctx.host.call<HostPeerLimits>('limits');
    const errors = (limits.maxErrorRepliesPerSecond ?? DEFAULT_ERROR_REPLIES_PER_SECOND) * FLOOD_SECONDS;
    if (errors > FLOOD_MAX_FRAMES) throw new StepNotJudged(`the host allows ${errors / FLOOD_SECONDS} Error replies a second; ${FLOOD_SECONDS} seconds' worth is past the probe's flood of at most ${FLOOD_MAX_FRAMES} frames`);
    // A host whose limits name no snapshot rate has none: only the Error flood is its to judge.
    const snapshots = limits.maxSnapshotRequestsPerSecond === undefined ? 0 : limits.maxSnapshotRequestsPerSecond * FLOOD_SECONDS;
    if (snapshots > SNAPSHOT_FLOOD_MAX_REQUESTS) throw new StepNotJudged(`the host allows ${limits.maxSnapshotRequestsPerSecond} snapshot requests a second; ${FLOOD_SECONDS} seconds' worth is past the probe's flood of at most ${SNAPSHOT_FLOOD_MAX_REQUESTS} requests`);
    await floodErrors(ctx, errors);
    if (snapshots) await floodSnapshotRequests(ctx, snapshots);
  },
  done: (o, before) => (probeEnded(o, before) ? undefined : 'the host closing the flooding probe connection, or answering every frame of the flood'),
};

/** The first probe connection: a text message, one refused frame, then `frames` more past the Error rate. */
async function floodErrors(ctx: StepContext, frames: number): Promise<void> {
  const probe = await ctx.probe();
  const from = (await ctx.observe()).wireCount;
  // The refused frame right behind the text message: the host answers in order, so the frame's Error ends the wait
  // whether or not the text message got one (whether it did is the frame rules' to judge).
  probe.sendText('not a frame');
  probe.send(neverSubscribedInput());
  await ctx.until((o) => (probeEnded(o, ctx.before) || answeredSince(o, from, 'probe', NEVER_SUBSCRIBED, [WIRE.opcode.Error]) ? undefined : 'an Error answering input on a stream the probe never subscribed'));
  if (probeEnded(await ctx.observe(), ctx.before)) return;
  probe.sendFlood(Array.from({ length: frames }, neverSubscribedInput));
  await ctx.until((o) => (probeEnded(o, ctx.before) ? undefined : 'the host closing the flooding probe connection, or answering every frame of the flood'));
}

/** The second probe connection: subscribed to the journey's terminal, it asks for `requests` snapshots at once, past the snapshot rate. */
async function floodSnapshotRequests(ctx: StepContext, requests: number): Promise<void> {
  const ended = (o: Observation) => probeEndsSince(o, ctx.before) > 1;
  const probe = await ctx.probe();
  const from = (await ctx.observe()).wireCount;
  probe.send(handmadeFrame(WIRE.opcode.Subscribe, 0, JSON.stringify({ streamId: SNAPSHOT_FLOOD_STREAM, terminal: JOURNEY_TERMINAL })));
  await ctx.until((o) => (ended(o) || answeredSince(o, from, 'probe', SNAPSHOT_FLOOD_STREAM, [WIRE.opcode.SnapshotEnd]) ? undefined : "the snapshot answering the probe's Subscribe"));
  if (ended(await ctx.observe())) return;
  probe.sendFlood(Array.from({ length: requests }, snapshotRequest), endsASnapshot);
  await ctx.until((o) => (ended(o) ? undefined : 'the host closing the probe connection that asks for snapshots past its rate, or answering every request'));
}

/**
 * The probe asks the host to upgrade a connection with a token it never
 * issued: refused with 401 (or 403), which a client reads as a wrong token
 * (AUTH_REFUSED) and does not retry as a network failure. It asks twice
 * more at once: the host judges each attempt only after the delay the
 * failures before it set for its network. Last in the script:
 * a failed authentication slows the next attempt from the same network, and
 * every peer of the journey connects from the loopback.
 */
export const wrongToken: JourneyStep = {
  name: 'wrongToken',
  act: (ctx) => ctx.probeWrongToken(),
  done: (o, before) => (probeEnded(o, before) ? undefined : 'the host answering an upgrade with a wrong token'),
};
