import type { FrameLink, LinkHandlers } from '../../src/transport/link.js';
import { seededRandom } from '../helpers/seeded-random.js';

export { seededRandom };


/** Fault settings the schedule flips; probabilities apply per frame, per direction. */
export interface NetFaults {
  loss: number;
  duplicate: number;
}

/**
 * A SIMULATED network between one client and one host runtime, in process and
 * deterministic: frames wait in per-connection queues until the schedule
 * pumps them, and may be lost or duplicated on the way. A connection can go
 * silently dead (a black hole): what the client sends into it is buffered and
 * may reach the host much later, as a dead TCP connection's bytes can.
 */
export class SimConnection {
  readonly client: SimEnd;
  readonly host: SimEnd;
  /** Dead: nothing is delivered either way and neither end is told. */
  dead = false;
  /** The host runtime behind it is gone (restarted): its buffered frames can never arrive. */
  hostGone = false;
  /** Client frames sent while dead, in order, for a late arrival. */
  readonly late: Uint8Array[] = [];

  constructor(
    readonly id: number,
    readonly net: SimNet,
  ) {
    this.client = new SimEnd(this, 'client');
    this.host = new SimEnd(this, 'host');
  }

  /** Hands the dead connection's buffered client frames to the host end, as a late TCP delivery would. */
  deliverLate(): number {
    const frames = this.late.splice(0);
    if (this.hostGone) return 0;
    for (const f of frames) this.host.enqueue(f);
    return frames.length;
  }
}

export class SimEnd implements FrameLink {
  private handlers: LinkHandlers | undefined;
  readonly inbox: Uint8Array[] = [];
  private open = true;

  constructor(
    readonly connection: SimConnection,
    readonly side: 'client' | 'host',
  ) {}

  get peer(): SimEnd {
    return this.side === 'client' ? this.connection.host : this.connection.client;
  }

  get bufferedBytes(): number {
    return 0;
  }

  get isOpen(): boolean {
    return this.open;
  }

  send(frame: Uint8Array): void {
    if (!this.open) return;
    const net = this.connection.net;
    net.onSend(this.side, frame);
    if (this.connection.dead) {
      if (this.side === 'client') this.connection.late.push(frame.slice());
      return;
    }
    const faultable = net.faultable(frame);
    if (faultable && net.random() < net.faults.loss) return;
    this.peer.enqueue(frame.slice());
    if (faultable && net.random() < net.faults.duplicate) this.peer.enqueue(frame.slice());
  }

  /** Closes this end now; the peer hears of it only if the connection is not dead (a reset, not a black hole). */
  close(reason = 'closed'): void {
    if (!this.open) return;
    this.open = false;
    this.handlers?.close(reason);
    if (!this.connection.dead) this.peer.close(`peer closed: ${reason}`);
  }

  attach(handlers: LinkHandlers): void {
    this.handlers = handlers;
  }

  enqueue(frame: Uint8Array): void {
    this.inbox.push(frame);
  }

  /** Delivers one queued frame; false when none. */
  deliverOne(): boolean {
    const frame = this.inbox.shift();
    if (!frame) return false;
    if (this.open && this.handlers) this.handlers.frame(frame);
    return true;
  }
}

export class SimNet {
  readonly faults: NetFaults = { loss: 0, duplicate: 0 };
  readonly connections: SimConnection[] = [];
  /** Input frames the client sent (resends included), for "resends stop". */
  inputFramesSent = 0;
  private nextId = 1;

  constructor(
    readonly random: () => number,
    /** Frames that loss and duplication may hit. */
    readonly faultable: (frame: Uint8Array) => boolean,
  ) {}

  open(): SimConnection {
    const c = new SimConnection(this.nextId++, this);
    this.connections.push(c);
    return c;
  }

  onSend(side: 'client' | 'host', frame: Uint8Array): void {
    if (side === 'client' && frame[2] === 7) this.inputFramesSent++; // opcode Input
  }

  /** Delivers queued frames, oldest connection first, until nothing deliverable is left (handlers may queue more). */
  pump(): void {
    for (let progress = true; progress; ) {
      progress = false;
      for (const c of this.connections) {
        if (c.hostGone) continue;
        while (c.host.deliverOne()) progress = true;
        if (c.dead) continue;
        while (c.client.deliverOne()) progress = true;
      }
    }
  }
}
