import type { ResumeOutcome } from '../codec/resume-outcome.js';
import type { OutputHistory } from './output-history.js';

/** What a Subscribe asks to resume from (outputResume). */
export interface ResumeAsk {
  readonly resumeFrom?: number | undefined;
  readonly resumeInstanceId?: string | undefined;
}

/** What the decision needs of the terminal. */
export interface ResumableTerminal {
  readonly instanceId: string;
  /** The output high-water mark now. */
  readonly seq: number;
  /** The seq at which the terminal last changed size; undefined when it never did. */
  readonly lastResizeSeq: number | undefined;
  readonly history: OutputHistory;
}

export type ResumeDecision = { readonly outcome: 'resumed'; readonly bytes: Uint8Array } | { readonly outcome: Exclude<ResumeOutcome, 'resumed'> };

/**
 * Whether a resubscribing client can be sent the output it missed instead of
 * a snapshot: only from the same terminal instance, from a point the terminal
 * has reached, with every byte after it still held, and laid out at the size
 * the client last saw (a resize at exactly the resume point reaches the
 * client in `subscribed`). Undefined when nothing was asked.
 */
export function decideResume(ask: ResumeAsk, terminal: ResumableTerminal): ResumeDecision | undefined {
  const from = ask.resumeFrom;
  if (from === undefined) return undefined;
  if (ask.resumeInstanceId !== terminal.instanceId) return { outcome: 'otherInstance' };
  if (terminal.lastResizeSeq !== undefined && terminal.lastResizeSeq > from) return { outcome: 'resized' };
  if (from < terminal.history.startSeq) return { outcome: 'beyondHistory' };
  const bytes = terminal.history.bytesAfter(from);
  return bytes ? { outcome: 'resumed', bytes } : { outcome: 'unknownPoint' };
}
