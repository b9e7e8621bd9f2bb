import { typedWhileDownStep } from './down-steps.js';
import { CORE_STEPS, first, type JourneyStep, screenShows, TYPED_AFTER_RECONNECT, terminalGot } from './steps.js';
import { SURFACE_STEPS } from './surface-steps.js';

/** Typed once the closed stream is noticed: held, and the reason the reconnect has sequenced input to answer. */
export const TYPED_WHILE_STREAM_CLOSED = 'echo closed é─𝐀\r';

/** The proxy closes the byte stream (it has no liveness, so a silent drop would never be noticed); the client notices at once. */
const linkClosed: JourneyStep = {
  name: 'linkClosed',
  holdsReconnect: true,
  act: async ({ drop }) => drop('close'),
  done: (o, before) => (o.client.disconnects > before.client.disconnects ? undefined : 'the client noticing the closed stream'),
};

/** Nothing was typed into a dead link here (a closed stream is noticed at once): only what is typed now must arrive. */
const inputAfterReconnect: JourneyStep = {
  ...CORE_STEPS.inputAfterReconnect,
  done: (o) => first(terminalGot(o, TYPED_AFTER_RECONNECT), screenShows(o, `ran: ${TYPED_AFTER_RECONNECT.trim()}`)),
};

/**
 * Typed right after the close. A TCP connect completes before the proxy reads
 * it, so the client may already be connected again, but it is not subscribed:
 * the line is held either way, and the step ends once it is typed.
 */
const typedWhileStreamClosed: JourneyStep = { ...typedWhileDownStep(TYPED_WHILE_STREAM_CLOSED), done: () => undefined };

/**
 * The byte-stream pass: the core journey over a length-framed TCP stream
 * between the real peers (framing, large frames split across reads, a
 * reconnect with held input), judged on outcomes and refused frames. The
 * frame-by-frame comparison stays with the WebSocket pass: the frames are the same.
 */
export const STREAM_JOURNEY: readonly JourneyStep[] = [
  CORE_STEPS.subscribe,
  CORE_STEPS.initialSnapshot,
  CORE_STEPS.input,
  CORE_STEPS.liveOutput,
  SURFACE_STEPS.title,
  SURFACE_STEPS.burst,
  CORE_STEPS.hideReveal,
  linkClosed,
  typedWhileStreamClosed,
  CORE_STEPS.resubscribe,
  inputAfterReconnect,
  CORE_STEPS.unsubscribe,
];
