/**
 * Frames whose timing is their sender's own policy: where they are split,
 * batched or coalesced follows a PTY read, a timer or a size, not the
 * protocol. No rule compares where such a frame falls in a step, how many
 * there are, or its values one by one. Whether it appears on a stream at all
 * is judged only as `presence` says, by what the other peer needs of it.
 */
export interface TimingPolicy {
  /** What decides when the sender sends it. */
  readonly timing: string;
  /**
   * 'onStream': a stream the reference carried it on carries it in the skew
   * too (FRAME_NO_LONGER_SENT). 'byConsequence': its absence is judged only
   * by what the peer then does, which `need` names; a sender that holds it a
   * little longer, so a short stream ends first, changes nothing a peer needs.
   */
  readonly presence: 'onStream' | 'byConsequence';
  /** What the other peer needs of it, and which rule or step sees that need unmet. */
  readonly need: string;
}

export const TIMING_POLICY: Readonly<Record<string, TimingPolicy>> = {
  Output: { timing: 'split wherever the PTY read returns', presence: 'onStream', need: "the terminal's text: a stream that carried output still carries it" },
  OutputSpan: { timing: 'split wherever the PTY read returns', presence: 'onStream', need: "the terminal's text: a stream that carried output still carries it" },
  Ack: {
    timing: "batched by size or a timer, the client's own choice",
    presence: 'byConsequence',
    need: "credit back before the host's window for the stream fills, and in total what the client parsed: a host left without it withholds output, which the steps that print past a window (burst, twoStreams, overflowRecovery) see as a stall or a recovery snapshot; the totals of cleanly ended streams are compared (FIELD_VALUE_CHANGED Ack.bytes)",
  },
};

/** Whether a frame's timing is its sender's policy. */
export const isTimingPolicy = (opcodeName: string): boolean => opcodeName in TIMING_POLICY;
