import { type Finding, PAIRING_LABELS } from '../rules/finding.js';
import { dedupeKey, sortAndDedupe, stepRank } from './sort.js';
import { wireSubject } from '../journey/passes.js';
import { capabilityEchoMismatch } from '../rules/dynamic/capability-echo.js';
import { fieldStoppedPublishing } from '../rules/dynamic/field-publishing.js';
import { fieldValueChanged } from '../rules/dynamic/field-values.js';
import { frameNoLongerSent } from '../rules/dynamic/frame-presence.js';
import { frameSequenceChanged } from '../rules/dynamic/frame-sequence.js';
import { gatedFrameNotNegotiated } from '../rules/dynamic/gated-frame.js';
import { frameRefused, inputNotExactlyOnce, journeyStalled, screenMismatch } from '../rules/dynamic/journey-outcome-rules.js';
import { snapshotContentChanged } from '../rules/dynamic/snapshot-content.js';
import { capabilityNoLongerAdvertised, capabilityRemoved } from '../rules/static/capability-rules.js';
import { payloadFieldMadeRequired, payloadFieldRemoved } from '../rules/static/payload-rules.js';

/** A finding as reported: a stable id within the report, and the root cause that explains it, if one does. */
export interface ReportedFinding extends Finding {
  readonly id: string;
  /** The id of the root cause this finding is a consequence of. */
  readonly causedBy?: string;
  /** Where its subject is declared in the working tree (an opcode row, a schema field), when known. */
  readonly location?: { readonly file: string; readonly line: number };
}

/** Rules whose findings are symptoms: they say something went wrong, not why. A missing capability echo is one when the client refused the event that carries it. */
const SYMPTOM_RULES: ReadonlySet<string> = new Set([journeyStalled.id, screenMismatch.id, inputNotExactlyOnce.id, capabilityEchoMismatch.id]);

/** Static causes that change what a pairing negotiates. */
const CAPABILITY_CAUSES: ReadonlySet<string> = new Set([capabilityNoLongerAdvertised.id, capabilityRemoved.id]);

/** Rule 3 findings: a peer publishing differently, which is what a changed negotiation makes it do. */
const PUBLISHING_RULES: ReadonlySet<string> = new Set([frameNoLongerSent.id, frameSequenceChanged.id, fieldValueChanged.id, fieldStoppedPublishing.id, snapshotContentChanged.id]);

const samePairing = (a: Finding, b: Finding) => a.direction === b.direction && a.baseline === b.baseline;

/** A finding with no step (a journey-wide total, such as Ack.bytes) diverged somewhere along the journey: before any step's symptom. */
const atOrBefore = (cause: Finding, symptom: Finding) => cause.step === undefined || stepRank(cause.step) <= stepRank(symptom.step);

/**
 * The frame that diverged first explains a symptom after it: a refusal, else
 * the first Rule 3 publishing change, in the symptom's pairing. New × new runs
 * only the new build, so a symptom there that nothing in it explains comes
 * from the change the skews show first.
 */
function firstDivergence(sorted: readonly Finding[], symptom: Finding): Finding | undefined {
  const before = (c: Finding) => c.baseline === symptom.baseline && atOrBefore(c, symptom);
  return (
    sorted.find((r) => r.ruleId === frameRefused.id && samePairing(r, symptom) && before(r)) ??
    sorted.find((c) => PUBLISHING_RULES.has(c.ruleId) && samePairing(c, symptom) && before(c)) ??
    (symptom.direction === PAIRING_LABELS.newNew ? sorted.find((c) => PUBLISHING_RULES.has(c.ruleId) && c.direction !== PAIRING_LABELS.newNew && before(c)) : undefined)
  );
}

/** A static finding about an opcode or one of its fields explains the receiver refusing that opcode's frames, on any transport and in any pass. */
function explainsRefusal(cause: Finding, refusal: Finding): boolean {
  const subject = wireSubject(refusal.subject);
  return cause.pass === 'static' && samePairing(cause, refusal) && (cause.subject === subject || cause.subject.startsWith(`${subject}.`));
}

/** The object a payload field sits in: `Metadata.[type=subscribed]` for `Metadata.[type=subscribed].truncated`. */
const parentOf = (subject: string) => subject.slice(0, Math.max(0, subject.lastIndexOf('.')));

/**
 * A field removed and a field made required in the same object is one rename:
 * the old reader misses the old name, the new reader wants the new one. The
 * removal is the cause; the other direction's requirement is what it brings.
 */
function explainsRename(cause: Finding, f: Finding): boolean {
  return cause.ruleId === payloadFieldRemoved.id && f.ruleId === payloadFieldMadeRequired.id && cause.baseline === f.baseline && parentOf(cause.subject) !== '' && parentOf(cause.subject) === parentOf(f.subject);
}

/** `Metadata[type=subscribed].truncated`, as the dynamic rules name a field, is `Metadata.[type=subscribed].truncated` in the manifest. */
const fieldPath = (subject: string) => wireSubject(subject).replace(/\.?\[/g, '.[');

/** A static finding on a field explains, in its pairing, the new build publishing that field differently: the change the manifest shows is the one the journey saw. */
function explainsPublishing(cause: Finding, f: Finding): boolean {
  return cause.pass === 'static' && f.pass === 'dynamic' && PUBLISHING_RULES.has(f.ruleId) && samePairing(cause, f) && fieldPath(cause.subject) === fieldPath(f.subject);
}

/**
 * The same break seen again: the same rule on the same wire subject at the same
 * step (and occurrence) in the same pairing, by another pass or another explore
 * journey. The same frame breaking at another step is another finding, which an
 * entry for the first must not silence.
 */
const repeats = (cause: Finding, f: Finding) =>
  cause !== f && cause.pass === 'dynamic' && f.pass === 'dynamic' && cause.ruleId === f.ruleId && samePairing(cause, f) && cause.step === f.step && cause.occurrence === f.occurrence && wireSubject(cause.subject) === wireSubject(f.subject);

/**
 * A capability no longer offered explains, in the pairing it names, the frames
 * and values that change because it is no longer negotiated, and, in any
 * pairing, a frame it gated that was sent without it.
 */
function explainsByCapability(cause: Finding, f: Finding): boolean {
  if (cause.pass !== 'static' || !CAPABILITY_CAUSES.has(cause.ruleId) || f.pass !== 'dynamic' || cause.baseline !== f.baseline) return false;
  if (f.ruleId === gatedFrameNotNegotiated.id) return f.evidence.capability === cause.subject.replace(/^capability /, '');
  return PUBLISHING_RULES.has(f.ruleId) && samePairing(cause, f);
}

/** A frame sent without the capability that gates it, and refused for it, is one cause: the send. */
const sameGatedFrame = (gated: Finding, refusal: Finding) => gated.ruleId === gatedFrameNotNegotiated.id && samePairing(gated, refusal) && gated.subject === wireSubject(refusal.subject);

/**
 * Orders findings root causes first, each followed by the findings it
 * explains, so one intended break takes one acknowledgement: a capability no
 * longer offered explains what its absence changes (explainsByCapability); a
 * refusal of an opcode is explained by a static finding on that opcode in the
 * same pairing, or by the same frame sent without its capability; a stall, a
 * screen mismatch, input not delivered exactly once or a missing capability
 * echo is explained by the first divergence at or before its step
 * (firstDivergence). Anything unexplained is a root cause itself.
 */
export function orderByRootCause(findings: readonly Finding[], locate: (f: Finding) => ReportedFinding['location'] = () => undefined): ReportedFinding[] {
  const sorted = sortAndDedupe(findings);
  const rootOf = rootsOf(sorted);
  const roots = sorted.filter((f) => !rootOf.has(f));
  // Under a cause, the refusals it explains come before the symptoms they in turn explain.
  const explained = (root: Finding) => sorted.filter((f) => rootOf.get(f) === root);
  const ordered = roots.flatMap((root) => [root, ...explained(root).filter((f) => !SYMPTOM_RULES.has(f.ruleId)), ...explained(root).filter((f) => SYMPTOM_RULES.has(f.ruleId))]);
  const ids = new Map(ordered.map((f, i) => [f, `F${i + 1}`]));
  return ordered.map((f) => {
    const root = rootOf.get(f);
    const location = locate(f);
    return { ...f, id: ids.get(f)!, ...(root ? { causedBy: ids.get(root)! } : {}), ...(location ? { location } : {}) };
  });
}

/**
 * Which of a walk's findings need no walk of their own to stand: each that
 * repeats one of `causes`, or sits, among the causes and the walk's findings,
 * under a root cause that is one of them. `causes` are findings that already
 * stand: static ones, which no load can make up, and dynamic ones a confirming
 * walk confirmed. A stall under a refusal under a static finding stands; one
 * under a refusal nothing explains does not.
 */
export function standingIn(causes: readonly Finding[]): (found: readonly Finding[]) => ReadonlySet<Finding> {
  return (found) => {
    const sorted = sortAndDedupe([...causes, ...found]);
    const rootOf = rootsOf(sorted);
    const byKey = new Map(sorted.map((f) => [dedupeKey(f), f]));
    const standingKeys = new Set(causes.map(dedupeKey));
    return new Set(
      found.filter((f) => {
        const kept = byKey.get(dedupeKey(f))!;
        return standingKeys.has(dedupeKey(kept)) || standingKeys.has(dedupeKey(rootOf.get(kept) ?? kept));
      }),
    );
  };
}

/** Each finding that another explains, mapped to the root cause it sits under. */
function rootsOf(sorted: readonly Finding[]): Map<Finding, Finding> {
  const rootOf = new Map<Finding, Finding>();
  const rootOfCause = (c: Finding) => rootOf.get(c) ?? c;
  for (const f of sorted) {
    const cause = sorted.find((c) => explainsByCapability(c, f) || explainsRename(c, f) || explainsPublishing(c, f));
    if (cause) rootOf.set(f, cause);
  }
  for (const f of sorted) {
    if (f.ruleId !== frameRefused.id) continue;
    const cause = sorted.find((c) => explainsRefusal(c, f)) ?? sorted.find((c) => sameGatedFrame(c, f));
    if (cause) rootOf.set(f, rootOfCause(cause));
  }
  for (const f of sorted) {
    if (!SYMPTOM_RULES.has(f.ruleId)) continue;
    const cause = firstDivergence(sorted, f);
    if (cause) rootOf.set(f, rootOfCause(cause));
  }
  // Last, so a repeat joins whatever cause its first sighting sits under.
  for (const f of sorted) {
    if (rootOf.has(f)) continue;
    const first = sorted.find((c) => repeats(c, f));
    if (first && sorted.indexOf(first) < sorted.indexOf(f)) rootOf.set(f, rootOfCause(first));
  }
  return rootOf;
}

/** The findings `root` explains, in report order. */
export function consequencesOf(root: ReportedFinding, all: readonly ReportedFinding[]): ReportedFinding[] {
  return all.filter((f) => f.causedBy === root.id);
}

/** The directions a root cause and the findings it explains are in: what the entry acknowledging it covers. */
export function directionsCovered(root: ReportedFinding, all: readonly ReportedFinding[]): string[] {
  return [...new Set([root.direction, ...consequencesOf(root, all).map((f) => f.direction)])];
}
