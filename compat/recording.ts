import type { CapabilitySet } from '../src/capabilities/registry.js';

/** What the journey runner records for one pairing; the dynamic rules read only this. */
export type Side = 'old' | 'new';

export const STEP_NAMES = [
  'subscribe',
  'initialSnapshot',
  'input',
  'liveOutput',
  'hideReveal',
  'drop',
  'resubscribe',
  'inputAfterReconnect',
  'unsubscribe',
] as const;
export type StepName = (typeof STEP_NAMES)[number];

/** Which snapshot of the journey a frame belongs to; repeated frame shapes are compared per occurrence. */
export const OCCURRENCES = ['initial', 'reveal', 'reconnect'] as const;
export type Occurrence = (typeof OCCURRENCES)[number];

export type FrameDirection = 'clientToHost' | 'hostToClient';

export interface RecordedFrame {
  index: number;
  direction: FrameDirection;
  step: StepName;
  occurrence?: Occurrence;
  opcode: number;
  opcodeName: string;
  streamId: number;
  seq: number;
  /** Decoded by the AUTHOR's codec: a JSON object, text, or {hex}. */
  payload: unknown;
  rawHex: string;
  /** Set when the RECEIVING build's decoder refused the frame. */
  refusedBy?: { code: string; message: string };
}

export interface StepResult {
  name: StepName;
  status: 'ok' | 'stalled' | 'skipped';
  /** For a stall: what the barrier was still waiting for. */
  missing?: string;
  durationMs: number;
}

export interface PairingRecording {
  client: Side;
  host: Side;
  clientVersion: string;
  hostVersion: string;
  steps: StepResult[];
  frames: RecordedFrame[];
  advertised: { client: CapabilitySet; host: CapabilitySet };
  /** What the client saw echoed on `subscribed`; undefined when no echo arrived. */
  negotiated: CapabilitySet | undefined;
  /**
   * Everything typed, in order, and what the terminal received. `atMostOnce`
   * is the part typed into a dead link: without exactly-once input (inputAck)
   * it may be lost, but never duplicated.
   */
  input: { typed: string; reachedTerminal: string; atMostOnce?: string };
  screens: { client: string; host: string };
  peerErrors: string[];
}

export type PairingKey = 'newNew' | 'oldOld' | 'oldClientNewHost' | 'newClientOldHost';

export type JourneyRecordingSet = Record<PairingKey, PairingRecording>;
