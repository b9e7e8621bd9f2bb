import { setTimeout as sleep } from 'node:timers/promises';
import { SoakPeer } from './peer.js';

const TYPE_EVERY_MS = 50;
const KILL_LINE = '\x15'; // Ctrl-U: the markers never run as commands

export interface TypistResult {
  /** Markers whose echo never came (within 5 s), plus 1 when the connection was lost. */
  readonly lost: number;
}

/**
 * A person typing into their own shell: one short marker at a time, timing
 * the round trip until the PTY's echo of it comes back as Output.
 */
export class Typist {
  private constructor(
    private readonly peer: SoakPeer,
    private readonly index: number,
  ) {}

  /** Connects, subscribes and waits until its shell echoes: the typist is ready before any abuse starts. */
  static async start(url: string, token: string, index: number): Promise<Typist> {
    const peer = await SoakPeer.connect(url, token);
    if (!(peer instanceof SoakPeer)) throw new Error(`healthy client ${index} could not connect: ${JSON.stringify(peer)}`);
    const typist = new Typist(peer, index);
    peer.send('Subscribe', 0, { streamId: 1, terminal: `healthy-${index}` });
    if (!(await typist.echo('warmup', 10_000))) throw new Error(`healthy client ${index}: its shell never echoed`);
    return typist;
  }

  async typeUntil(until: number, latencies: number[], giveUpMs: number): Promise<TypistResult> {
    let lost = 0;
    for (let n = 0; performance.now() < until && this.peer.isOpen; n++) {
      const started = performance.now();
      if (await this.echo(`h${this.index}x${n}`, giveUpMs)) latencies.push(performance.now() - started);
      else lost++;
      await sleep(TYPE_EVERY_MS);
    }
    if (!this.peer.isOpen) lost++;
    this.peer.close();
    return { lost };
  }

  private async echo(marker: string, giveUpMs: number): Promise<boolean> {
    const echoed = this.peer.until(marker);
    this.peer.send('Input', 1, marker);
    const inTime = await Promise.race([echoed.then(() => true), sleep(giveUpMs).then(() => false)]);
    this.peer.send('Input', 1, KILL_LINE);
    return inTime;
  }
}
