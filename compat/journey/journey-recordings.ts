import type { PairingRecording, StepName } from '../recording.js';
import type { SomePairings } from '../rules/dynamic/journey-outcome-rules.js';
import type { UndrivableSteps } from './drivable.js';

export interface RestartRecordings {
  readonly oldClientNewHost: PairingRecording;
  readonly newClientOldHost: PairingRecording;
  readonly newNew: PairingRecording;
  readonly oldOld?: PairingRecording;
}

export interface JourneyRecordings {
  newNew: PairingRecording;
  oldOld: PairingRecording;
  oldClientNewHost: PairingRecording;
  newClientOldHost: PairingRecording;
  /** The second pass, both skews against a real shell in a PTY: judged on outcomes only. Absent when `--passes` leaves it out, as is each pass below. */
  pty?: { oldClientNewHost: PairingRecording; newClientOldHost: PairingRecording };
  /**
   * The restart pass: the host stops under a live client and starts as the
   * other build (old → new under an old client, new → old under a new one),
   * and new → new. Old → old is walked only when old → new went wrong, to tell
   * the old client's own failing from the new host's.
   */
  restart?: RestartRecordings;
  /** The byte-stream pass (both skews and new × new over a length-framed TCP stream), absent when either build's peers speak WebSocket only. */
  stream?: RestartRecordings;
  /**
   * The lifetime pass (lifetime-steps.ts), in each pairing whose host peer
   * takes a lifetime (`detachedIdleMs`); absent when neither build's does.
   * Old × old only when old client × new host went wrong and the old host takes one.
   */
  lifetime?: SomePairings & { readonly oldOld?: PairingRecording };
  /** The passes beside the script that the two builds could not walk, each with why (what a build's peers lack). */
  unwalked?: Readonly<Partial<Record<'pty' | 'restart' | 'stream' | 'lifetime', string>>>;
  /** Script steps no pairing of this run walked, because a peer of either build cannot drive them, with why. */
  skippedSteps: ReadonlyMap<StepName, string>;
  /** The same skips, per build whose peers cannot drive them. */
  undrivable: readonly UndrivableSteps[];
  /** Said when a role's code is the release's and the pairings that differ only in it were walked once (same-code.ts). */
  sameCode?: string;
}
