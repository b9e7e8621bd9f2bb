import { PAIRING_LABELS } from '../finding.js';
import type { PairingKey, PairingRecording } from '../../recording.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';

const ALL_PAIRINGS = Object.keys(PAIRING_LABELS) as PairingKey[];

/** Outcome rules also judge the PTY pass, which runs only some pairings: judge those present. */
export type SomePairings = Partial<Record<PairingKey, PairingRecording>>;
const present = (recordings: SomePairings) => ALL_PAIRINGS.filter((key) => recordings[key] !== undefined);

/** FRAME_REFUSED: in any pairing, a frame the receiving build's decoder refused (Rule 2). */
export const frameRefused = dynamicRule({
  id: 'FRAME_REFUSED',
  compatibilityRule: 2,
  purpose: "The receiving build's decoder refused a frame the other build wrote.",
  fix: { fix: "make the writer send only what the receiver's schema accepts, or gate the change behind a capability", docs: FIX_DOCS.gating },
  judge: (recordings: SomePairings) =>
    present(recordings).flatMap((key) =>
      recordings[key]!.frames
        // A frame the proxy wrote on purpose (a provoked Error) is meant to be refused; no build authored it.
        .filter((f) => f.refusedBy !== undefined && f.fault !== 'injected')
        .map((f) => ({
          direction: PAIRING_LABELS[key],
          subject: f.opcodeName,
          step: f.step,
          ...(f.occurrence ? { occurrence: f.occurrence } : {}),
          message: `the ${f.direction === 'hostToClient' ? 'client' : 'host'} refused ${f.opcodeName} (opcode ${f.opcode}, stream ${f.streamId}, seq ${f.seq}): ${f.refusedBy!.code}`,
          evidence: { frameIndex: f.index, refusedBy: f.refusedBy, payload: f.payload, rawHex: f.rawHex },
        }),
        ),
    ),
});

/**
 * UNGATED_SEND_DROPPED (Rule 2): the new build's code tried to send a gated
 * frame on a stream that did not negotiate its capability, and the send gate
 * dropped it, as it does in production. Nothing crossed the wire, so no frame
 * rule can see it; the peer reports it with the site that sent it. Only the
 * new build's drops are findings: the baseline's are the release's own.
 */
export const ungatedSendDropped = dynamicRule({
  id: 'UNGATED_SEND_DROPPED',
  compatibilityRule: 2,
  purpose: "The new build tried to send a gated frame on a stream that did not negotiate its capability, and its send gate dropped it (so nothing crossed the wire); reported with the send site.",
  fix: { fix: "at the send site, send the frame only where the stream negotiated its capability (check the echo), or send what the older peer understands instead", docs: FIX_DOCS.gating },
  judge: (recordings: SomePairings) =>
    present(recordings).flatMap((key) =>
      (recordings[key]!.ungatedSends ?? [])
        .filter((r) => r.side === 'new')
        .flatMap((r) => {
          const byOpcode = new Map<string, (typeof r.first)[number]>();
          for (const send of r.first) if (!byOpcode.has(send.opcodeName)) byOpcode.set(send.opcodeName, send);
          return [...byOpcode.values()].map((send) => ({
            direction: PAIRING_LABELS[key],
            subject: send.opcodeName,
            message: `the new ${r.role} tried to send ${send.opcodeName} (opcode ${send.opcode}) on stream ${send.streamId}, which did not negotiate '${send.capability}'; its send gate dropped it (${r.count} dropped send(s) in this pairing). Sent from ${send.site}`,
            evidence: { role: r.role, capability: send.capability, streamId: send.streamId, site: send.site, droppedSends: r.count },
          }),
          );
        }),
    ),
});

/** JOURNEY_STALLED: a step whose barrier never saw the state it waits for. */
export const journeyStalled = dynamicRule({
  id: 'JOURNEY_STALLED',
  compatibilityRule: null,
  purpose: 'A journey step did not reach its barrier before the deadline.',
  fix: { fix: 'look at the first frame refused or missing before this step: the stall is where it showed, not where it began', docs: 'docs/compatibility.md#how-the-gate-runs' },
  judge: (recordings: SomePairings) =>
    present(recordings).flatMap((key) =>
      recordings[key]!.steps
        .filter((s) => s.status === 'stalled')
        .map((s) => ({
          direction: PAIRING_LABELS[key],
          subject: `step ${s.name}`,
          step: s.name,
          message: `step ${s.name} stalled after ${s.durationMs} ms${s.missing ? `: missing ${s.missing}` : ''}`,
          evidence: { missing: s.missing ?? null, peerErrors: recordings[key]!.peerErrors },
        }),
        ),
    ),
});

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * What the terminal may have received: exactly what was typed; without
 * exactly-once input (inputAck not negotiated), input typed into a dead link
 * may also be missing, but nothing may arrive twice or out of order.
 */
export function acceptableInput(rec: PairingRecording): string[] {
  const { typed, atMostOnce } = rec.input;
  return !exactlyOnce(rec) && atMostOnce ? [typed, typed.replace(atMostOnce, '')] : [typed];
}

const exactlyOnce = (rec: PairingRecording) => (rec.negotiated?.inputAck ?? 0) >= 1;

/**
 * Whether `reached` is what was typed with some dark segments left out, each
 * on its own (a journey may drop the link several times): the positions in
 * `reached` each prefix of the segments can end at, never more than one per segment.
 */
function reachedWithSomeDarkSegmentsLost(segments: NonNullable<PairingRecording['input']['segments']>, reached: string): boolean {
  let ends = new Set([0]);
  for (const { text, atMostOnce } of segments) {
    const next = new Set<number>();
    for (const at of ends) {
      if (reached.startsWith(text, at)) next.add(at + text.length);
      if (atMostOnce) next.add(at);
    }
    ends = next;
    if (ends.size === 0) return false;
  }
  return ends.has(reached.length);
}

export function inputAcceptable(rec: PairingRecording): boolean {
  const { segments, reachedTerminal } = rec.input;
  if (segments && !exactlyOnce(rec)) return reachedWithSomeDarkSegmentsLost(segments, reachedTerminal);
  return acceptableInput(rec).includes(reachedTerminal);
}

/** INPUT_NOT_EXACTLY_ONCE: the terminal must receive what was typed, each byte once, in order. */
export const inputNotExactlyOnce = dynamicRule({
  id: 'INPUT_NOT_EXACTLY_ONCE',
  compatibilityRule: null,
  purpose: 'What reached the terminal is not exactly the input the client typed, once and in order.',
  fix: { fix: 'look at input delivery (go-back-N) in this pairing: the ledger, the journal and the inputAck echo', docs: FIX_DOCS.protocol },
  judge: (recordings: SomePairings) =>
    present(recordings).filter((key) => !inputAcceptable(recordings[key]!)).map((key) => {
      const { typed, reachedTerminal } = recordings[key]!.input;
      return{
        direction: PAIRING_LABELS[key],
        subject: 'input',
        message: `the terminal received ${JSON.stringify(reachedTerminal)} for typed ${JSON.stringify(typed)} (first difference at character ${firstDifference(typed, reachedTerminal)})`,
        evidence: { before: typed, after: reachedTerminal, acceptable: acceptableInput(recordings[key]!) },
      };
    }),
});

/** SCREEN_MISMATCH: what the client shows must be what the host's terminal holds. */
export const screenMismatch = dynamicRule({
  id: 'SCREEN_MISMATCH',
  compatibilityRule: null,
  purpose: "The client's screen differs from the host's screen at the end of the journey.",
  fix: { fix: 'look at the snapshots and output this pairing exchanged: the client rendered something the host did not hold', docs: FIX_DOCS.protocol },
  judge: (recordings: SomePairings) =>
    present(recordings).filter((key) => recordings[key]!.screens.client !== recordings[key]!.screens.host).map((key) => {
      const { client, host } = recordings[key]!.screens;
      const hostLines = host.split('\n');
      const clientLines = client.split('\n');
      let line = 0;
      while (line < hostLines.length && hostLines[line] === clientLines[line]) line++;
      return{
        direction: PAIRING_LABELS[key],
        subject: 'screen',
        message: `the client screen differs from the host screen from line ${line + 1}`,
        evidence: { before: hostLines[line] ?? null, after: clientLines[line] ?? null, line: line + 1 },
      };
    }),
});
