import { PAIRING_LABELS } from '../finding.js';
import type { PairingKey } from '../../recording.js';
import { type DynamicRule, dynamicFinding } from './types.js';

const PAIRINGS = Object.keys(PAIRING_LABELS) as PairingKey[];

/**
 * GATED_FRAME_NOT_NEGOTIATED (Rule 2): a frame whose opcode is gated by a
 * capability, sent in a pairing whose subscribe did not negotiate it. The
 * receiver may decode it fine and still ignore it, so FRAME_REFUSED cannot
 * see it; gating comes from the author's own manifest.
 */
export const gatedFrameNotNegotiated: DynamicRule = (recordings, manifests) =>
  PAIRINGS.flatMap((key) => {
    const rec = recordings[key];
    const reported = new Set<string>(); // the first such frame per opcode and direction is the evidence
    return rec.frames.flatMap((f) => {
      const author = f.direction === 'hostToClient' ? rec.host : rec.client;
      const capability = manifests[author].opcodes.find((o) => o.code === f.opcode)?.gatedBy;
      if (!capability || (rec.negotiated?.[capability] ?? 0) >= 1 || reported.has(`${f.direction}:${f.opcode}`)) return [];
      reported.add(`${f.direction}:${f.opcode}`);
      return [
        dynamicFinding({
          ruleId: 'GATED_FRAME_NOT_NEGOTIATED',
          direction: PAIRING_LABELS[key],
          subject: f.opcodeName,
          step: f.step,
          ...(f.occurrence ? { occurrence: f.occurrence } : {}),
          message: `the ${author} ${f.direction === 'hostToClient' ? 'host' : 'client'} sent ${f.opcodeName} (opcode ${f.opcode}), gated by '${capability}', which this pairing did not negotiate`,
          evidence: { frameIndex: f.index, capability, negotiated: rec.negotiated ?? null },
        }),
      ];
    });
  });
