import { readSurface } from '../../manifest/surface.js';
import { fieldName } from '../../../src/manifest/surface.js';
import { type Finding, PAIRING_LABELS } from '../finding.js';
import type { PairingRecording, RecordedFrame } from '../../recording.js';
import { OPAQUE_FIELDS, publishedFields } from './field-publishing.js';
import { overflowSnapshotFrames } from './flow-policy.js';
import { answersTimingDependentFrame, gatingTable, negotiatedInBoth, streamOrdinals } from './frame-sequence.js';
import { isTimingPolicy } from './timing-policy.js';
import { isStandIn, isObject, noStepStalled, OLD_READER_COMPARISONS, occurrenceSlots, slotWhere, stepOk } from './frame-slots.js';
import { type FindingDraft, dynamicRule } from '../rule-spec.js';
import type { SideManifests } from './types.js';

/** The header's seq, for payloads that carry no seq of their own. */
export const HEADER_SEQ = '(seq)';

/** The stable code a "CODE: message" text starts with (an Error, a close reason); the whole text where it names none. */
export const codeOfText = (text: string): string => /^([A-Z][A-Z0-9_]*):/.exec(text)?.[1] ?? text;

/**
 * Payloads whose text or bytes have structure: the part a reader acts on is
 * compared, not the whole. An Error's message may be reworded; its code may not.
 */
export const STRUCTURED_PAYLOADS: Readonly<Record<string, (f: RecordedFrame) => Record<string, unknown>>> = {
  Error: (f) => ({ code: typeof f.payload === 'string' ? codeOfText(f.payload) : f.payload }),
  // The wire byte, not the author's decoding of it: two builds may name the same byte differently.
  InputAck: (f) => ({ flag: f.rawHex.length > 32 ? parseInt(f.rawHex.slice(32, 34), 16) : 'absent' }),
};

/** What `FIELD_VALUE_CHANGED` compares in one frame, by path. */
export function comparedValues(f: RecordedFrame): Map<string, unknown> {
  const structured = STRUCTURED_PAYLOADS[f.opcodeName];
  if (structured) return new Map([...Object.entries(structured(f)), [HEADER_SEQ, f.seq]]);
  if (!isObject(f.payload)) return new Map([[HEADER_SEQ, f.seq]]);
  // Leaves only: an object's children are compared one by one; opaque maps are judged by their own rule.
  return new Map([...publishedFields(f.payload)].filter(([path, v]) => !isObject(v) && !OPAQUE_FIELDS.some((o) => path === o || path.startsWith(`${o}.`))));
}

/** Fields either build declares volatile in its schemas, by `Label.path`. */
function volatileFields(manifests: SideManifests): Set<string> {
  const out = new Set<string>();
  for (const m of [manifests.old, manifests.new]) {
    for (const e of readSurface(m).entries) if (e.kind === 'field' && e.volatile) out.add(fieldName(e.opcode, e.path));
  }
  return out;
}

const isVolatile = (volatile: Set<string>, label: string, path: string) => {
  const parts = path.split('.');
  return parts.some((_, i) => volatile.has(`${label}.${parts.slice(0, i + 1).join('.')}`));
};

/**
 * Frames whose values are compared occurrence by occurrence: not split or
 * batched by timing, not Input (judged by what reached the terminal), not an
 * undecodable payload, and a gated opcode only where both runs negotiated it.
 */
export function valueFrames(keep: (opcodeName: string) => boolean): (f: RecordedFrame) => boolean {
  return (f) => !isTimingPolicy(f.opcodeName) && !answersTimingDependentFrame(f) && f.opcodeName !== 'Input' && !isStandIn(f.payload) && keep(f.opcodeName);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Where in the output a snapshot was taken: its SnapshotStart's seq, and every snapshot frame's header seq. */
const isSnapshotPoint = (path: string) => path === 'seq' || path === HEADER_SEQ;

/** Ack bytes per stream over the whole journey: batching and the step an Ack lands in follow a timer, the total does not. */
export function ackTotals(rec: PairingRecording): Map<string, number> {
  const totals = new Map<string, number>();
  const streamKey = streamKeys(rec);
  for (const f of rec.frames) {
    if (f.direction !== 'clientToHost' || f.opcodeName !== 'Ack' || !isObject(f.payload) || typeof f.payload.bytes !== 'number') continue;
    const stream = streamKey(f);
    totals.set(stream, (totals.get(stream) ?? 0) + f.payload.bytes);
  }
  return totals;
}

/**
 * `#1 on connection 1`, `second #1 on connection 1`: stream ids are each
 * client's own choice, and a client may subscribe the same id again after a
 * reconnect, so a stream is keyed by its client, that client's n-th
 * connection, and the stream's order of first use.
 */
function streamKeys(rec: PairingRecording): (f: RecordedFrame) => string {
  const byClient = new Map<string, Map<number, number>>();
  // Numbered over the whole recording, so every caller names a connection alike.
  const connections = new Map<string, Map<number, number>>();
  for (const f of rec.frames) {
    const seen = connections.get(f.client ?? 'primary') ?? connections.set(f.client ?? 'primary', new Map()).get(f.client ?? 'primary')!;
    if (!seen.has(f.connection ?? 0)) seen.set(f.connection ?? 0, seen.size + 1);
  }
  return (f) => {
    const client = f.client ?? 'primary';
    if (!byClient.has(client)) byClient.set(client, streamOrdinals(rec, client));
    const ordinal = byClient.get(client)!.get(f.streamId)!;
    return `${client === 'primary' ? '' : `${client} `}#${ordinal} on connection ${connections.get(client)!.get(f.connection ?? 0)}`;
  };
}

/**
 * Streams the client ended with an Unsubscribe. A stream cut by a dead link
 * loses the Ack its batcher held when the link died (a 4 ms timer against a
 * drop right after output), so only a cleanly ended stream has a total to compare.
 */
export function cleanlyEndedStreams(rec: PairingRecording): Set<string> {
  const streamKey = streamKeys(rec);
  return new Set(rec.frames.filter((f) => f.direction === 'clientToHost' && f.opcodeName === 'Unsubscribe' && f.fault !== 'injected').map(streamKey));
}

/**
 * FIELD_VALUE_CHANGED (Rule 3): a value the new build publishes toward the old
 * build differs from what the old build's own counterpart publishes for the
 * same occurrence in old × old. Volatile fields come from the schemas.
 */
export const fieldValueChanged = dynamicRule({
  id: 'FIELD_VALUE_CHANGED',
  compatibilityRule: 3,
  purpose: 'A value the new build publishes toward the old build differs from what the old build’s own counterpart publishes for the same frame occurrence (volatile fields excepted).',
  fix: { fix: 'keep the value old readers expect (units, meaning, code); publish the new value in a new field, or project it (section 3a)', docs: 'docs/adding-an-opcode.md#3a-when-an-existing-frame-changes-shape-a-projection' },
  judge: (recordings, manifests) => {
    const volatile = volatileFields(manifests);
    const gating = gatingTable(manifests);
    const findings: FindingDraft[] = [];
    for (const c of OLD_READER_COMPARISONS) {
      const skew = recordings[c.skew];
      const include = valueFrames(negotiatedInBoth(skew, recordings.oldOld, gating));
      const actual = occurrenceSlots(skew, c.direction, include);
      const [overflowInSkew, overflowInReference] = [overflowSnapshotFrames(skew), overflowSnapshotFrames(recordings.oldOld)];
      for (const [key, ref] of occurrenceSlots(recordings.oldOld, c.direction, include)) {
        const got = actual.get(key);
        if (!got || !stepOk(skew, ref.step) || !stepOk(recordings.oldOld, ref.step)) continue;
        const now = comparedValues(got.frame);
        // Where a host drops output for an overflow snapshot is its flow policy (flow-policy.ts).
        const bothOverflow = overflowInReference.has(ref.frame.index) && overflowInSkew.has(got.frame.index);
        for (const [path, before] of comparedValues(ref.frame)) {
          // Absent is FIELD_STOPPED_PUBLISHING's finding.
          if (!now.has(path) || same(before, now.get(path)) || isVolatile(volatile, ref.label, path) || (bothOverflow && isSnapshotPoint(path))) continue;
          const after = now.get(path);
          findings.push({
            direction: PAIRING_LABELS[c.skew],
            subject: `${ref.label}.${path}`,
            step: ref.step,
            ...(ref.occurrence ? { occurrence: ref.occurrence } : {}),
            message: `the ${c.writer} publishes ${path} = ${JSON.stringify(after)} in ${ref.label} (${slotWhere(ref)}); the old build publishes ${JSON.stringify(before)}`,
            evidence: { before, after, referenceFrame: ref.frame.index, frame: got.frame.index },
          });
        }
      }
      if (c.direction !== 'clientToHost' || !noStepStalled(skew) || !noStepStalled(recordings.oldOld)) continue;
      const acked = ackTotals(skew);
      const [endedInSkew, endedInReference] = [cleanlyEndedStreams(skew), cleanlyEndedStreams(recordings.oldOld)];
      for (const [stream, before] of ackTotals(recordings.oldOld)) {
        if (!endedInSkew.has(stream) || !endedInReference.has(stream)) continue;
        const after = acked.get(stream);
        // No Ack at all on the stream is FRAME_NO_LONGER_SENT's finding.
        if (after === undefined || after === before) continue;
        findings.push({
          direction: PAIRING_LABELS[c.skew],
          subject: 'Ack.bytes',
          message: `the ${c.writer} acknowledged ${after} bytes in all on stream ${stream}; the old client acknowledges ${before} for the same output`,
          evidence: { before, after, stream },
        });
      }
    }
    return findings;
  },
});
