import { PAIRING_LABELS } from '../finding.js';
import type { PairingKey, PairingRecording, RecordedFrame } from '../../recording.js';
import { isObject } from './frame-slots.js';
import { FIX_DOCS, dynamicRule } from '../rule-spec.js';

const PAIRINGS = Object.keys(PAIRING_LABELS) as PairingKey[];

const streamKey = (f: RecordedFrame) => `${f.client ?? 'primary'}|${f.connection ?? 0}|${f.streamId}`;

/**
 * What each stream's own `subscribed` event echoed, by client, connection and
 * stream: a connection may hold streams that negotiated less than its first
 * (a bare stream with no capabilities), and a gated frame on one of them is
 * sent without negotiation though the pairing's echo has the capability.
 */
function echoByStream(rec: PairingRecording): Map<string, Readonly<Record<string, unknown>>> {
  const echoes = new Map<string, Readonly<Record<string, unknown>>>();
  for (const f of rec.frames) {
    if (f.direction !== 'hostToClient' || f.opcodeName !== 'Metadata' || !isObject(f.payload) || f.payload.type !== 'subscribed' || !isObject(f.payload.capabilities)) continue;
    echoes.set(streamKey(f), f.payload.capabilities);
  }
  return echoes;
}

/**
 * GATED_FRAME_NOT_NEGOTIATED (Rule 2): a frame whose opcode is gated by a
 * capability, sent in a pairing, or on a stream, whose subscribe did not negotiate it. The
 * receiver may decode it fine and still ignore it, so FRAME_REFUSED cannot
 * see it; gating comes from the author's own manifest.
 */
export const gatedFrameNotNegotiated = dynamicRule({
  id: 'GATED_FRAME_NOT_NEGOTIATED',
  compatibilityRule: 2,
  purpose: 'A frame whose opcode is gated by a capability was sent in a pairing, or on a stream, that did not negotiate it.',
  fix: { fix: "send the frame through the stream's SendGate, only after the capability's echo", docs: FIX_DOCS.gating },
  judge: (recordings, manifests) =>
    PAIRINGS.flatMap((key) => {
      const rec = recordings[key];
      const reported = new Set<string>(); // the first such frame per opcode and direction is the evidence
      const echoes = echoByStream(rec);
      // Negotiated where both the pairing's echo and the stream's own (when recorded) hold it.
      const negotiated = (f: RecordedFrame, capability: string) => {
        const echo = echoes.get(streamKey(f));
        return (rec.negotiated?.[capability] ?? 0) >= 1 && (echo === undefined || Number(echo[capability] ?? 0) >= 1);
      };
      return rec.frames.flatMap((f) => {
        const author = f.direction === 'hostToClient' ? rec.host : rec.client;
        const capability = manifests[author].opcodes.find((o) => o.code === f.opcode)?.gatedBy;
        // A frame the proxy injected is the harness's (limitsReached sends a bare stream a gated frame on purpose).
        if (!capability || f.fault === 'injected' || negotiated(f, capability) || reported.has(`${f.direction}:${f.opcode}`)) return [];
        reported.add(`${f.direction}:${f.opcode}`);
        return [
          {
            direction: PAIRING_LABELS[key],
            subject: f.opcodeName,
            step: f.step,
            ...(f.occurrence ? { occurrence: f.occurrence } : {}),
            message: `the ${author} ${f.direction === 'hostToClient' ? 'host' : 'client'} sent ${f.opcodeName} (opcode ${f.opcode}), gated by '${capability}', which this pairing did not negotiate`,
            evidence: { frameIndex: f.index, capability, negotiated: rec.negotiated ?? null },
          },
        ];
      });
    }),
});
