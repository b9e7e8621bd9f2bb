import { hasCapability } from '../capabilities/negotiate.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import type { OutputTracker } from './output-tracker.js';
import type { ResumeResult } from './stream-events.js';

interface Point {
  readonly seq: number;
  readonly instanceId: string;
}

/**
 * A stream's resume point across reconnects (outputResume): where its output
 * stopped when a link went, sent in the next Subscribe, and what the host made
 * of it.
 */
export class StreamResume {
  private point: Point | undefined;
  private asked: Point | undefined;
  /** An instance this stream saw exit: there is nothing of it to resume. */
  private ended: string | undefined;

  /**
   * The live link went. The point is the last output applied, when there is
   * one to resume from: the stream shows output (a hidden one is repainted on
   * reveal anyway), no snapshot is awaited, and the host named the instance.
   * A link lost before its subscribed event keeps the point it had: nothing arrived since.
   */
  linkLost(tracker: OutputTracker, hidden: boolean, instanceId: string | undefined): void {
    this.point = hidden || tracker.awaitingSnapshot || tracker.lastSeq === undefined || instanceId === undefined || instanceId === this.ended ? undefined : { seq: tracker.lastSeq, instanceId };
  }

  /** The instance exited and this stream was told: a later Subscribe asks for no point in it. */
  exited(instanceId: string | undefined): void {
    this.ended = instanceId;
    if (this.point?.instanceId === instanceId) this.point = undefined;
  }

  /** The Subscribe fields for the point, when this client advertises outputResume and has one. */
  subscribeFields(advertised: CapabilitySet): { resumeFrom?: number; resumeInstanceId?: string } {
    this.asked = hasCapability(advertised, 'outputResume') ? this.point : undefined;
    return this.asked ? { resumeFrom: this.asked.seq, resumeInstanceId: this.asked.instanceId } : {};
  }

  /** What the host did with the point the Subscribe asked for; undefined when it asked for none. The point is spent either way. */
  subscribed(echoed: CapabilitySet, event: { readonly seq: number; readonly resume?: string | undefined; readonly instanceId?: string | undefined }): ResumeResult | undefined {
    const asked = this.asked;
    this.asked = undefined;
    this.point = undefined;
    if (!asked) return undefined;
    const outcome = hasCapability(echoed, 'outputResume') ? (event.resume ?? 'unsupported') : 'unsupported';
    if (outcome === 'resumed') return { outcome, fromSeq: asked.seq, skippedBytes: 0 };
    return { outcome, fromSeq: asked.seq, ...(event.instanceId === asked.instanceId ? { skippedBytes: Math.max(0, event.seq - asked.seq) } : {}) };
  }
}
