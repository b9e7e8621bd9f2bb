import { SCRIPT_STEP_NAMES, type ScriptStepName } from '../recording.js';
import type { JourneyStep } from './steps.js';
import { CORE_STEPS } from './steps.js';
import { DOWN_STEPS } from './down-steps.js';
import { limitsReached } from './limit-steps.js';
import { limitsClosed, wrongToken } from './probe-steps.js';
import { BEHAVIOUR_STEPS } from './behaviour-steps.js';
import { SURFACE_STEPS } from './surface-steps.js';

/** Every step of the script by its name; a name in SCRIPT_STEP_NAMES without a step here does not compile. */
const SCRIPT_STEPS: Readonly<Record<ScriptStepName, JourneyStep>> = { ...CORE_STEPS, ...SURFACE_STEPS, ...DOWN_STEPS, ...BEHAVIOUR_STEPS, limitsReached, limitsClosed, wrongToken };

/**
 * The deterministic journey every pairing runs, in the order of
 * SCRIPT_STEP_NAMES. Each step ends on a barrier over observed state, never a
 * sleep. The exit comes late: after it only input, the unsubscribes, and a
 * late subscriber whose fresh terminal is then killed by a signal.
 */
export const JOURNEY: readonly JourneyStep[] = SCRIPT_STEP_NAMES.map((name) => SCRIPT_STEPS[name]);
