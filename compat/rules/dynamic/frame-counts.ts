import { PAIRING_LABELS } from '../finding.js';
import { type PairingKey, type PairingRecording, type StepName, STEP_NAMES } from '../../recording.js';
import { stepOk } from './frame-slots.js';
import { authoredFrames, CLIENTS, comparableRuns } from './frame-sequence.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';

/**
 * How far a count may stray before it is a change: more than FACTOR times
 * what the reference wrote, scaled by how long each run spent in the step,
 * plus SLACK. Timers fire late on a busy machine, never early, so a slow step
 * holds at most as many timer-driven frames per second as a quick one.
 */
export const COUNT_TOLERANCE = { factor: 4, slack: 4, shortestStepMs: 100 } as const;

/**
 * Frames whose count is how their author splits a payload, not how often it
 * says something: a harmless change of chunk size multiplies them. (Output,
 * OutputSpan and Ack are left out of every comparison already.)
 */
export const COUNT_VOLATILE_OPCODES: Readonly<Record<string, string>> = {
  SnapshotChunk: 'a snapshot is split into chunks of the host\'s choosing (harmless-smaller-snapshot-chunks)',
};

const durationOf = (rec: PairingRecording, step: StepName) => Math.max(COUNT_TOLERANCE.shortestStepMs, rec.steps.find((s) => s.name === step)?.durationMs ?? 0);

/**
 * Per element, the most times one frame was written again unchanged (same
 * seq, same payload): a resend. A payload split into more pieces, or more
 * distinct frames, is not a resend, so only repetition is counted.
 */
function repetitions(frames: ReadonlyArray<{ element: string; frame: { seq: number; rawHex: string; opcodeName: string } }>): Map<string, number> {
  const identical = new Map<string, number>();
  const most = new Map<string, number>();
  for (const { element, frame } of frames) {
    if (frame.opcodeName in COUNT_VOLATILE_OPCODES) continue;
    const identity = `${element}|${frame.seq}|${frame.rawHex.slice(32)}`;
    const n = (identical.get(identity) ?? 0) + 1;
    identical.set(identity, n);
    most.set(element, Math.max(most.get(element) ?? 0, n));
  }
  return most;
}

/**
 * FRAME_COUNT_CHANGED (Rule 3): a frame a build writes again unchanged in a
 * step far more often than its reference does, per second of the step. The
 * sequence rule folds repetitions (a resend timer's count is timing), so a
 * client that resends hundreds of times a second would look like one that
 * resends once; this rule compares those repetitions, with the same
 * references (SEQUENCE_COMPARISONS). One finding per pairing, author and step.
 */
export const frameCountChanged = dynamicRule({
  id: 'FRAME_COUNT_CHANGED',
  compatibilityRule: 3,
  purpose: 'A build writes a frame in a step far more often, per second of the step, than its reference does (the sequence rule folds repetitions).',
  fix: { fix: 'look for a timer or a retry loop that fires more often than before: keep its backoff, or gate the new rate like an opcode', docs: FIX_DOCS.gating },
  judge: (recordings, manifests) => {
    const reported = new Set<string>();
    const findings = [];
    for (const { c, skew, reference, side, keep, direction, leaveOut } of comparableRuns(recordings, manifests)) {
      for (const step of STEP_NAMES) {
        const key = `${c.skew}|${c.author}|${step}`;
        if (reported.has(key) || !stepOk(skew, step) || !stepOk(reference, step)) continue;
        const scale = Math.max(1, durationOf(skew, step) / durationOf(reference, step));
        for (const client of CLIENTS) {
          // A client's requests stay counted: asking far more often costs the host, though asking less costs it nothing.
          const left = c.author === 'host' ? leaveOut(step, client) : undefined;
          const expected = repetitions(authoredFrames(reference, direction, step, keep, client, left));
          const actual = repetitions(authoredFrames(skew, direction, step, keep, client, left));
          const over = [...actual].find(([element, n]) => n > COUNT_TOLERANCE.factor * (expected.get(element) ?? 0) * scale + COUNT_TOLERANCE.slack);
          if (!over || reported.has(key)) continue;
          reported.add(key);
          const [element, n] = over;
          const was = expected.get(element) ?? 0;
          findings.push(
            {
              direction: PAIRING_LABELS[c.skew as PairingKey],
              subject: `${side} ${c.author} frames`,
              step,
              message: `in step ${step} the ${side} ${c.author} wrote one ${element} ${n} times unchanged in ${durationOf(skew, step)} ms, where ${c.basis} repeats it at most ${was} times in ${durationOf(reference, step)} ms`,
              evidence: { before: was, after: n, element, skewMs: durationOf(skew, step), referenceMs: durationOf(reference, step), basis: c.basis, client },
            },
          );
        }
      }
    }
    return findings;
  },
});
