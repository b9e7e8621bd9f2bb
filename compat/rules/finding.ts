import type { Occurrence, PairingKey, StepName } from '../recording.js';

/** Which pairing breaks. The skew labels are the ones the brief names; references carry their own. */
export const PAIRING_LABELS = {
  newClientOldHost: 'new client × old host',
  oldClientNewHost: 'old client × new host',
  newNew: 'new client × new host',
  oldOld: 'old client × old host',
} as const satisfies Record<PairingKey, string>;

export type DirectionLabel = (typeof PAIRING_LABELS)[PairingKey];

/** A break the gate found. Data, never an exception. */
export interface Finding {
  readonly ruleId: string;
  readonly pass: 'static' | 'dynamic';
  readonly direction: DirectionLabel;
  /** What broke: an opcode, `Opcode.field`, a capability, or a frame stream. Acknowledgements match on it. */
  readonly subject: string;
  readonly message: string;
  readonly step?: StepName;
  readonly occurrence?: Occurrence;
  readonly evidence: { readonly before?: unknown; readonly after?: unknown; readonly [k: string]: unknown };
  /** Set for a matrix run (`--against last:N`): which baseline this came from. */
  readonly baseline?: string;
  /** Set for a finding of an explore journey, or of a journey with one capability off (`capabilityOff`, not drawn: its replay file replays it): its seed replays it (`--explore 1 --seed S`); `shrunk` is the fewest moves that still show it, in `replayFile` (`--replay FILE`). */
  readonly explore?: { readonly seed: number; readonly moves: readonly string[]; readonly shrunk?: readonly string[]; readonly replayFile?: string; readonly capabilityOff?: true };
}

/** The pairing in which `writer`'s new side writes to an old reader. */
export function newWriterToOldReader(writer: 'host' | 'client'): DirectionLabel {
  return writer === 'host' ? PAIRING_LABELS.oldClientNewHost : PAIRING_LABELS.newClientOldHost;
}

/** The pairing in which `writer`'s old side writes to a new reader. */
export function oldWriterToNewReader(writer: 'host' | 'client'): DirectionLabel {
  return writer === 'host' ? PAIRING_LABELS.newClientOldHost : PAIRING_LABELS.oldClientNewHost;
}

export function writerOf(direction: 'hostToClient' | 'clientToHost'): 'host' | 'client' {
  return direction === 'hostToClient' ? 'host' : 'client';
}
