import { setTimeout as sleep } from 'node:timers/promises';
import { Op } from '../../src/codec/opcodes.js';
import { SoakPeer } from './peer.js';

const PROBE_EVERY_MS = 500;

export interface ProbeResult {
  /** Milliseconds from each Subscribe to the end of its snapshot, for those answered. */
  readonly latencies: number[];
  /** Subscribes with no snapshot within the give-up time. */
  readonly unanswered: number;
}

/**
 * A newcomer opening a terminal while the host is attacked: every half
 * second a Subscribe to its own terminal on a new stream, timed until the
 * snapshot that answers it ends. The snapshot comes from the screen worker,
 * so this is what a storm on another terminal's screen would delay.
 */
export class SubscribeProbe {
  private constructor(private readonly peer: SoakPeer) {}

  static async start(url: string, token: string): Promise<SubscribeProbe> {
    const peer = await SoakPeer.connect(url, token);
    if (!(peer instanceof SoakPeer)) throw new Error(`the subscribe probe could not connect: ${JSON.stringify(peer)}`);
    const probe = new SubscribeProbe(peer);
    if (!(await probe.subscribe(1, 10_000))) throw new Error('the subscribe probe: its first Subscribe was never answered');
    return probe;
  }

  async probeUntil(until: number, giveUpMs: number): Promise<ProbeResult> {
    const latencies: number[] = [];
    let unanswered = 0;
    for (let streamId = 2; performance.now() < until && this.peer.isOpen; streamId++) {
      const started = performance.now();
      if (await this.subscribe(streamId, giveUpMs)) latencies.push(performance.now() - started);
      else unanswered++;
      this.peer.send('Unsubscribe', streamId, undefined);
      await sleep(PROBE_EVERY_MS);
    }
    this.peer.close();
    return { latencies, unanswered };
  }

  private subscribe(streamId: number, giveUpMs: number): Promise<boolean> {
    const answered = this.peer.nextFrame(Op.SnapshotEnd, streamId, giveUpMs);
    this.peer.send('Subscribe', 0, { streamId, terminal: 'probe' });
    return answered;
  }
}
