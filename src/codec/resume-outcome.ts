/**
 * What a host did with a Subscribe's resume point (`subscribed.resume`, under
 * outputResume). `resumed` means Output continues from `resumeFrom` with no
 * snapshot; `exited` ends the stream with the instance's exit; every other
 * outcome is answered with a snapshot, as a Subscribe without a resume point
 * is, and names why. Permanent once shipped.
 */
export const RESUME_OUTCOMES = {
  resumed: 'the host held every byte after resumeFrom: subscribed.seq is resumeFrom, and Output continues from it; no snapshot follows',
  beyondHistory: 'the bytes after resumeFrom are no longer held (outputHistoryBytes, or its share of maxTotalOutputHistoryBytes): a snapshot follows, and subscribed.seq - resumeFrom bytes were skipped',
  otherInstance: 'resumeInstanceId is not the running terminal instance (its shell was replaced): a snapshot follows',
  resized: 'the terminal changed size after resumeFrom: the output after it was laid out at another size, so a snapshot follows',
  unknownPoint: 'resumeFrom is past the terminal output or inside an Output frame: a snapshot follows',
  exited: 'the instance resumeInstanceId exited while the client was away: subscribed carries its instanceId, size and final seq, its exit event follows, then unsubscribed; no snapshot, and no new terminal is started',
} as const;

export type ResumeOutcome = keyof typeof RESUME_OUTCOMES;
