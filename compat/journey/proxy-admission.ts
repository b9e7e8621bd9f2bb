/** The host a proxy bridges to: its address, and the token it wants. */
export interface Upstream {
  readonly url: string;
  readonly token: string;
}

/**
 * What both recording proxies (WebSocket and byte stream) do before a client
 * connection is bridged: wait for the host to be known, and, while held, for
 * the step that lets reconnects through. Bridging itself is each proxy's own.
 */
export abstract class ProxyAdmission {
  protected connections = 0;
  private holding = false;
  private readonly held: Array<() => void> = [];
  private upstream: Promise<Upstream>;
  private setUpstream!: (upstream: Upstream) => void;

  constructor() {
    this.upstream = new Promise((resolve) => (this.setUpstream = resolve));
  }

  /**
   * While set, a new client connection waits, unread, until it is cleared: a
   * reconnect made during the drop step then crosses the wire in the next
   * step, whatever the timing of the barrier's polls.
   */
  set holdNewConnections(hold: boolean) {
    this.holding = hold;
    if (!hold) for (const release of this.held.splice(0)) release();
  }

  /** Where the host listens; clients that connect earlier wait for it, so both peers can start at once. */
  connectTo(upstream: Upstream): void {
    this.setUpstream(upstream);
  }

  /**
   * The host is about to go away (a restart or an upgrade): connections it
   * closes end as usual, and new ones wait until connectTo names the host that replaces it.
   */
  replaceUpstream(): void {
    this.upstream = new Promise((resolve) => (this.setUpstream = resolve));
  }

  get connectionCount(): number {
    return this.connections;
  }

  /** Connections waiting for the hold to be lifted. */
  get heldConnections(): number {
    return this.held.length;
  }

  /** The host to bridge a new client connection to, once it is known and the connection is let through. */
  protected admitted(): Promise<Upstream> {
    const released = this.holding ? new Promise<void>((resolve) => this.held.push(resolve)) : Promise.resolve();
    return Promise.all([this.upstream, released]).then(([upstream]) => upstream);
  }
}
