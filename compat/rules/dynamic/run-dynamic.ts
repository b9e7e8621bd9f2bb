import type { Finding } from '../finding.js';
import type { JourneyRecordingSet } from '../../recording.js';
import { capabilityEchoMismatch } from './capability-echo.js';
import { fieldStoppedPublishing } from './field-publishing.js';
import { fieldValueChanged } from './field-values.js';
import { frameNoLongerSent } from './frame-presence.js';
import { frameSequenceChanged } from './frame-sequence.js';
import { frameCountChanged } from './frame-counts.js';
import { gatedFrameNotNegotiated } from './gated-frame.js';
import { livenessAnswerChanged } from './liveness-answers.js';
import { snapshotContentChanged } from './snapshot-content.js';
import { frameRefused, inputNotExactlyOnce, journeyStalled, screenMismatch, ungatedSendDropped } from './journey-outcome-rules.js';
import type { DynamicRule, SideManifests } from './types.js';
import { coverageFindings, measureCoverage } from '../../coverage/measure.js';

const surfaceNotExercised: DynamicRule = (recordings, manifests) => coverageFindings(measureCoverage(manifests, recordings));

/** The dynamic pass, by catalog id. Every active dynamic rule in the catalog has an entry here (tested). */
export const DYNAMIC_RULES: Readonly<Record<string, DynamicRule>> = {
  FRAME_REFUSED: frameRefused,
  GATED_FRAME_NOT_NEGOTIATED: gatedFrameNotNegotiated,
  UNGATED_SEND_DROPPED: ungatedSendDropped,
  JOURNEY_STALLED: journeyStalled,
  FRAME_SEQUENCE_CHANGED: frameSequenceChanged,
  FRAME_COUNT_CHANGED: frameCountChanged,
  FIELD_STOPPED_PUBLISHING: fieldStoppedPublishing,
  FIELD_VALUE_CHANGED: fieldValueChanged,
  FRAME_NO_LONGER_SENT: frameNoLongerSent,
  CAPABILITY_ECHO_MISMATCH: capabilityEchoMismatch,
  INPUT_NOT_EXACTLY_ONCE: inputNotExactlyOnce,
  SNAPSHOT_CONTENT_CHANGED: snapshotContentChanged,
  SCREEN_MISMATCH: screenMismatch,
  LIVENESS_ANSWER_CHANGED: livenessAnswerChanged,
  SURFACE_NOT_EXERCISED: surfaceNotExercised,
};

/** Dynamic rules that judge something other than one journey's recordings: the differential codec check (compat/codec-diff), and behaviour over every walk of a run (compat/coverage/behaviour.ts). */
export const RULES_OUTSIDE_RECORDINGS: readonly string[] = ['DECODERS_DISAGREE', 'BEHAVIOUR_NOT_REACHED'];

export function runDynamicRules(recordings: JourneyRecordingSet, manifests: SideManifests, skip: readonly string[] = []): Finding[] {
  return Object.entries(DYNAMIC_RULES).flatMap(([id, rule]) => (skip.includes(id) ? [] : rule(recordings, manifests)));
}
