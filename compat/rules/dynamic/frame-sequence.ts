import { PAIRING_LABELS } from '../finding.js';
import { type ClientLabel, type FrameDirection, type JourneyRecordingSet, type PairingKey, type PairingRecording, type RecordedFrame, type StepName, STEP_NAMES } from '../../recording.js';
import { stepOk } from './frame-slots.js';
import { answerFrames, isRequest, requestsIn } from './requests.js';
import { isTimingPolicy } from './timing-policy.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';
import type { SideManifests } from './types.js';

/**
 * One comparison: frames `author` wrote in the `skew` pairing against what the
 * `reference` pairing says that step carries. Both references are journeys the
 * builds ran today, so the old side's expectation is the baseline's own
 * behaviour, never a list written down.
 *  - oldReader: the new build's frames toward the old build, against what the
 *    old reader gets from its own version (old × old). Same reader requests on
 *    both sides, so a difference is the new build's Rule 3 change.
 *  - sameBuild: a build's frames in the skew, against the same build's frames
 *    in its same-version reference; it catches a build reacting to a peer of
 *    the other version (an old client resyncing, a new host erroring).
 * Listed by priority: per (skew, author, step) only the first difference is reported.
 */
interface Comparison {
  readonly skew: 'oldClientNewHost' | 'newClientOldHost';
  readonly author: 'host' | 'client';
  readonly reference: 'newNew' | 'oldOld';
  readonly basis: string;
}

export const SEQUENCE_COMPARISONS: readonly Comparison[] = [
  { skew: 'oldClientNewHost', author: 'host', reference: 'oldOld', basis: 'what the old client gets from the old host (old × old)' },
  { skew: 'oldClientNewHost', author: 'host', reference: 'newNew', basis: 'what the new host sends in new × new' },
  { skew: 'oldClientNewHost', author: 'client', reference: 'oldOld', basis: 'what the old client sends in old × old' },
  { skew: 'newClientOldHost', author: 'client', reference: 'oldOld', basis: 'what the old host gets from the old client (old × old)' },
  { skew: 'newClientOldHost', author: 'client', reference: 'newNew', basis: 'what the new client sends in new × new' },
  { skew: 'newClientOldHost', author: 'host', reference: 'oldOld', basis: 'what the old host sends in old × old' },
];

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a.size === b.size && [...a].every((x) => b.has(x));
const negotiatedNames = (rec: PairingRecording) => new Set(Object.entries(rec.negotiated ?? {}).filter(([, v]) => (v ?? 0) >= 1).map(([k]) => k));

/** Gating capability by opcode name, from both builds' own manifests. */
export function gatingTable(manifests: SideManifests): Map<string, string> {
  const table = new Map<string, string>();
  for (const m of [manifests.old, manifests.new]) for (const o of m.opcodes) if (o.gatedBy) table.set(o.name, o.gatedBy);
  return table;
}

/** Stream ids are each client's choice: compare them by order of first use (per client when one is named), 0 (control) kept. */
export function streamOrdinals(rec: PairingRecording, client?: ClientLabel): Map<number, number> {
  const ordinals = new Map<number, number>([[0, 0]]);
  for (const f of rec.frames) if ((client === undefined || (f.client ?? 'primary') === client) && !ordinals.has(f.streamId)) ordinals.set(f.streamId, ordinals.size);
  return ordinals;
}

/**
 * An Error that answers a timing-dependent frame ("NOT_SUBSCRIBED: Ack on
 * stream 1, ...": an Ack batched late, after an Unsubscribe) is as
 * timing-dependent as the frame it answers. v0.1.0's client sends such late
 * Acks now and then, so its own reference run cannot say whether to expect one.
 */
export function answersTimingDependentFrame(f: { opcodeName: string; payload: unknown }): boolean {
  if (f.opcodeName !== 'Error' || typeof f.payload !== 'string') return false;
  const answered = /^[A-Z_]+: (\w+) /.exec(f.payload)?.[1];
  return answered !== undefined && isTimingPolicy(answered);
}

/** Longest block of frames a timer-driven repetition (a journal resend and its answers) is collapsed over. */
export const REPEATED_BLOCK_MAX = 4;

/**
 * Collapses a block that repeats right after itself, up to REPEATED_BLOCK_MAX
 * elements: a run of one frame is the block of length 1. How often a resend
 * timer fires before the step's barrier is timing; that it repeats is not.
 */
export function collapseRepeats(elements: readonly string[]): string[] {
  const out: string[] = [];
  for (const element of elements) {
    out.push(element);
    for (let size = 1; size <= REPEATED_BLOCK_MAX && out.length >= 2 * size; size++) {
      const tail = out.length - size;
      if (out.slice(tail).every((e, i) => e === out[tail - size + i])) {
        out.length = tail;
        break;
      }
    }
  }
  return out;
}

/**
 * The normalised sequence of (opcode, stream) one side wrote in one step,
 * toward or from one client: frames on different connections have no order
 * relative to each other, so each client's frames are compared on their own.
 * Frames the proxy injected are the harness's, not the author's.
 */
export function authoredSequence(rec: PairingRecording, direction: FrameDirection, step: StepName, keep: (opcodeName: string) => boolean, client: ClientLabel = 'primary', leaveOut?: (f: RecordedFrame) => boolean): string[] {
  return collapseRepeats(authoredFrames(rec, direction, step, keep, client, leaveOut).map((x) => x.element));
}

/** The frames authoredSequence is made of, each with its element, every repetition kept: what FRAME_COUNT_CHANGED counts. */
export function authoredFrames(rec: PairingRecording, direction: FrameDirection, step: StepName, keep: (opcodeName: string) => boolean, client: ClientLabel = 'primary', leaveOut?: (f: RecordedFrame) => boolean): Array<{ element: string; frame: RecordedFrame }> {
  const ordinals = streamOrdinals(rec, client);
  const out: Array<{ element: string; frame: RecordedFrame }> = [];
  for (const f of rec.frames) {
    if (f.direction !== direction || f.step !== step || (f.client ?? 'primary') !== client || f.fault === 'injected') continue;
    if (isTimingPolicy(f.opcodeName) || answersTimingDependentFrame(f) || !keep(f.opcodeName) || leaveOut?.(f)) continue;
    // Control events share one opcode: name the event, so a new or swapped event type is a change.
    const event = f.opcodeName === 'Metadata' && typeof (f.payload as { type?: unknown } | null)?.type === 'string' ? `[type=${(f.payload as { type: string }).type}]` : '';
    out.push({ element: `${f.opcodeName}${event}@s${ordinals.get(f.streamId)}`, frame: f });
  }
  return out;
}

export const CLIENTS: readonly ClientLabel[] = ['primary', 'second', 'probe'];
/** How a finding names the connection a sequence crossed; the driving client's goes unsaid. */
const ON_CONNECTION_OF: Readonly<Record<ClientLabel, string>> = { primary: '', second: " on the second client's connection", probe: " on the proxy's probe connection" };

/** A gated opcode is compared only where both runs negotiated it; elsewhere Rule 2's rules own it. */
export function negotiatedInBoth(a: PairingRecording, b: PairingRecording, gating: ReadonlyMap<string, string>): (opcodeName: string) => boolean {
  const inBoth = new Set([...negotiatedNames(a)].filter((n) => negotiatedNames(b).has(n)));
  return (name) => !gating.has(name) || inBoth.has(gating.get(name)!);
}

/** One comparison of SEQUENCE_COMPARISONS that applies to these recordings, with what both rules that use it need. */
export interface ComparableRun {
  readonly c: Comparison;
  readonly skew: PairingRecording;
  readonly reference: PairingRecording;
  /** Which build wrote the compared frames in the skew. */
  readonly side: 'old' | 'new';
  readonly keep: (opcodeName: string) => boolean;
  readonly direction: FrameDirection;
  /** Frames of a step this comparison does not judge by presence (REQUESTS): a new client's requests toward an old host, and answers to requests the reference did not make alike. */
  readonly leaveOut: (step: StepName, client: ClientLabel) => (f: RecordedFrame) => boolean;
}

/**
 * What REQUESTS leave out of one comparison. A new client's requests toward
 * the old build serve only that client. A host's answers are compared where
 * the client asked alike in both runs; elsewhere the answers follow the
 * asking. An old client's requests stay: the same code asking otherwise is
 * that client reacting to the other build.
 */
export function requestsLeftOut(c: Pick<Comparison, 'author' | 'reference'>, side: 'old' | 'new', skew: PairingRecording, reference: PairingRecording): ComparableRun['leaveOut'] {
  if (c.author === 'client') return side === 'new' && c.reference === 'oldOld' ? () => isRequest : () => () => false;
  // By frame, not index: the two recordings number their frames each on its own.
  const answers = new Set([...answerFrames(skew), ...answerFrames(reference)]);
  return (step, client) => {
    if (requestsIn(skew, step, client) === requestsIn(reference, step, client)) return () => false;
    return (f) => answers.has(f);
  };
}

/** The comparisons whose reference is an expectation for these recordings (FRAME_SEQUENCE_CHANGED and FRAME_COUNT_CHANGED share them). */
export function comparableRuns(recordings: JourneyRecordingSet, manifests: SideManifests): ComparableRun[] {
  const gating = gatingTable(manifests);
  return SEQUENCE_COMPARISONS.flatMap((c) => {
    const skew = recordings[c.skew];
    const reference = recordings[c.reference];
    const side = c.skew === 'oldClientNewHost' ? (c.author === 'host' ? 'new' : 'old') : c.author === 'host' ? 'old' : 'new';
    const sameBuild = side === (c.reference === 'newNew' ? 'new' : 'old');
    // A build's own reference is an expectation only when both runs negotiated the same capabilities:
    // acting on what was negotiated (resending journaled input, say) is Rule 2 working, not a change.
    // Toward an old reader the old × old basis above still applies.
    if (sameBuild && !sameSet(negotiatedNames(skew), negotiatedNames(reference))) return [];
    const direction: FrameDirection = c.author === 'host' ? 'hostToClient' : 'clientToHost';
    return [{ c, skew, reference, side, keep: negotiatedInBoth(skew, reference, gating), direction, leaveOut: requestsLeftOut(c, side, skew, reference) }];
  });
}

/** FRAME_SEQUENCE_CHANGED: see SEQUENCE_COMPARISONS for how each expectation is derived. */
export const frameSequenceChanged = dynamicRule({
  id: 'FRAME_SEQUENCE_CHANGED',
  compatibilityRule: 3,
  purpose: "The frames a build wrote in a step differ from what the derived expectation (a same-version reference run) says that step carries.",
  fix: { fix: 'send the frames an old peer expects on this path, or gate the new sequence behind a capability', docs: FIX_DOCS.gating },
  judge: (recordings, manifests) => {
    const reported = new Set<string>();
    const findings = [];
    for (const { c, skew, reference, side, keep, direction, leaveOut } of comparableRuns(recordings, manifests)) {
      for (const step of STEP_NAMES) {
        for (const client of CLIENTS) {
          const key = `${c.skew}|${c.author}|${step}`;
          if (reported.has(key) || !stepOk(skew, step) || !stepOk(reference, step)) continue;
          const expected = authoredSequence(reference, direction, step, keep, client, leaveOut(step, client));
          const actual = authoredSequence(skew, direction, step, keep, client, leaveOut(step, client));
          if (expected.join(' ') === actual.join(' ')) continue;
          reported.add(key);
          findings.push({
            direction: PAIRING_LABELS[c.skew as PairingKey],
            subject: `${side} ${c.author} frames`,
            step,
            message: `in step ${step} the ${side} ${c.author} wrote [${actual.join(', ')}]${ON_CONNECTION_OF[client]}, expected [${expected.join(', ')}]: ${c.basis}`,
            evidence: { before: expected, after: actual, basis: c.basis, reference: c.reference, client },
          });
        }
      }
    }
    return findings;
  },
});
