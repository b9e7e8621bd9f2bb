import type { JourneyStep } from './steps.js';
import { CORE_STEPS } from './steps.js';
import { DOWN_STEPS } from './down-steps.js';
import { limitsReached } from './limit-steps.js';
import { SURFACE_STEPS } from './surface-steps.js';

const step = { ...CORE_STEPS, ...SURFACE_STEPS, ...DOWN_STEPS, limitsReached };

/**
 * The deterministic journey every pairing runs, in order, drawn from the step
 * vocabulary. Each step ends on a barrier over observed state, never a sleep.
 * The exit comes late: after it only input, the unsubscribes, and a late
 * subscriber whose fresh terminal is then killed by a signal.
 */
export const JOURNEY: readonly JourneyStep[] = [
  step.subscribe,
  step.initialSnapshot,
  step.input,
  step.liveOutput,
  step.title,
  step.twoStreams,
  step.paste,
  step.burst,
  step.overflowRecovery,
  step.hideReveal,
  step.reattach,
  step.drop,
  step.typedWhileDown,
  step.pasteWithdrawn,
  step.resubscribe,
  step.inputAfterReconnect,
  step.hiddenAcrossReconnect,
  step.provokedErrors,
  step.inputResend,
  step.inputDuplicated,
  step.deliveryUnknown,
  step.secondClient,
  step.resize,
  step.claimViewport,
  step.limitsReached,
  step.exit,
  step.inputAfterExit,
  step.unsubscribe,
  step.inputAfterUnsubscribe,
  step.lateSubscriber,
  step.killed,
];
