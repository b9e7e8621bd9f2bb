import type { Observation } from './observed-state.js';
import { answeredSince, type HostPeerLimits } from './limit-steps.js';
import { type JourneyStep, StepNotJudged } from './steps.js';
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

const neverSubscribedInput = () => handmadeFrame(WIRE.opcode.Input, NEVER_SUBSCRIBED, 'x');
const probeEnded = (o: Observation, before: Observation) => o.probeEnds.length > before.probeEnds.length;

/**
 * What the host does to a peer no client library is: the proxy's own probe
 * connection sends a WebSocket text message (refused with TEXT_MESSAGE, the
 * connection kept), one frame on a stream it never subscribed, and then a
 * flood of such frames, each earning an Error, past maxErrorRepliesPerSecond.
 * The host closes the connection for the limit (1008, ERROR_RATE), or answers
 * every frame if it has no such limit: how it ended is recorded (ProbeEnd)
 * and compared, the flood's own replies only counted.
 */
export const limitsClosed: JourneyStep = {
  name: 'limitsClosed',
  needs: { host: ['limits'] },
  act: async (ctx) => {
    const { limits } = await ctx.host.call<HostPeerLimits>('limits');
    const perSecond = limits.maxErrorRepliesPerSecond ?? DEFAULT_ERROR_REPLIES_PER_SECOND;
    const floodFrames = perSecond * FLOOD_SECONDS;
    if (floodFrames > FLOOD_MAX_FRAMES) throw new StepNotJudged(`the host allows ${perSecond} Error replies a second; ${FLOOD_SECONDS} seconds' worth is past the probe's flood of at most ${FLOOD_MAX_FRAMES} frames`);
    const probe = await ctx.probe();
    const from = (await ctx.observe()).wireCount;
    // The refused frame right behind the text message: the host answers in order, so the frame's Error ends the wait
    // whether or not the text message got one (whether it did is the frame rules' to judge).
    probe.sendText('not a frame');
    probe.send(neverSubscribedInput());
    await ctx.until((o) => (probeEnded(o, ctx.before) || answeredSince(o, from, 'probe', NEVER_SUBSCRIBED, [WIRE.opcode.Error]) ? undefined : 'an Error answering input on a stream the probe never subscribed'));
    if (probeEnded(await ctx.observe(), ctx.before)) return;
    probe.sendFlood(Array.from({ length: floodFrames }, neverSubscribedInput));
  },
  done: (o, before) => (probeEnded(o, before) ? undefined : 'the host closing the flooding probe connection, or answering every frame of the flood'),
};

/**
 * The probe asks the host to upgrade a connection with a token it never
 * issued: refused with 401 (or 403), which a client reads as a wrong token
 * (AUTH_REFUSED) and does not retry as a network failure. Last in the script:
 * a failed authentication slows the next attempt from the same network, and
 * every peer of the journey connects from the loopback.
 */
export const wrongToken: JourneyStep = {
  name: 'wrongToken',
  act: (ctx) => ctx.probeWrongToken(),
  done: (o, before) => (probeEnded(o, before) ? undefined : 'the host answering an upgrade with a wrong token'),
};
