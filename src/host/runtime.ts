import { randomUUID } from 'node:crypto';
import { DEFAULT_HOST_CAPABILITIES } from '../capabilities/defaults.js';
import { PROJECTIONS } from '../capabilities/projection-table.js';
import { ProjectionRegistry } from '../capabilities/projections.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import type { SendGateMode } from '../capabilities/send-gate.js';
import { InputLedger } from '../delivery/ledger.js';
import { resolveDeliveryOptions, type DeliveryOptions } from '../delivery/options.js';
import type { FrameLink } from '../transport/link.js';
import { type ConnectionHost, HostConnection } from './host-connection.js';
import { HostedTerminal } from './hosted-terminal.js';
import { DEFAULT_HOST_OPTIONS, type HostCounters, type HostLimits, newCounters } from './options.js';
import type { TerminalBackend } from './terminal.js';

export interface HostRuntimeOptions {
  /** Makes the terminal for a name on its first Subscribe, or undefined when there is none (TERMINAL_NOT_FOUND). */
  readonly terminals: (name: string) => TerminalBackend | undefined;
  /** What this host supports and echoes. Default DEFAULT_HOST_CAPABILITIES. */
  readonly capabilities?: CapabilitySet;
  /** Limits and tunables, over DEFAULT_HOST_OPTIONS. */
  readonly limits?: Readonly<Partial<HostLimits>>;
  /** What the send gate does with an ungated send: 'throw' under tests, 'drop' otherwise (the SendGate default). */
  readonly sendGateMode?: SendGateMode;
  /** Per-peer downgrades applied on every send path, built once. Default a registry of PROJECTIONS. */
  readonly projections?: ProjectionRegistry;
  /** Exactly-once input tunables (the ledger's session bound), over DEFAULT_DELIVERY_OPTIONS. */
  readonly delivery?: Readonly<Partial<DeliveryOptions>>;
  /** This runtime's inputLedgerId; default a random UUID. A restarted runtime must get a new one. */
  readonly ledgerId?: string;
}

/**
 * The reference host: serves named terminals to any number of connections.
 * Terminals outlive connections, so a client that reconnects finds its
 * terminal where it left it.
 */
export class HostRuntime implements ConnectionHost {
  readonly limits: HostLimits;
  readonly capabilities: CapabilitySet;
  readonly gateMode: SendGateMode | undefined;
  readonly projections: ProjectionRegistry;
  /** Exactly-once input: what this runtime applied per (terminal, input session). */
  readonly ledger: InputLedger;
  /** Grows over the runtime's life; tests read it. */
  readonly counters: HostCounters = newCounters();
  private readonly terminals = new Map<string, HostedTerminal>();
  private readonly connections = new Set<HostConnection>();
  private closed = false;

  constructor(private readonly options: HostRuntimeOptions) {
    this.limits = Object.freeze({ ...DEFAULT_HOST_OPTIONS, ...options.limits });
    this.capabilities = { ...(options.capabilities ?? DEFAULT_HOST_CAPABILITIES) };
    this.gateMode = options.sendGateMode;
    this.projections = options.projections ?? new ProjectionRegistry(PROJECTIONS);
    this.ledger = new InputLedger(options.ledgerId ?? randomUUID(), resolveDeliveryOptions(options.delivery));
  }

  /** Serves one client over `link` until either side closes it. */
  accept(link: FrameLink): HostConnection {
    if (this.closed) {
      link.close('host closed');
      throw new Error('HostRuntime.accept after close()');
    }
    const connection = new HostConnection(link, this);
    this.connections.add(connection);
    return connection;
  }

  /** A terminal already opened by a Subscribe (or by openTerminal), for inspection. */
  terminal(name: string): HostedTerminal | undefined {
    return this.terminals.get(name);
  }

  /** The terminal by name, created by the factory on first use. */
  openTerminal(name: string): HostedTerminal | undefined {
    if (this.closed) return undefined;
    const existing = this.terminals.get(name);
    if (existing) return existing;
    const backend = this.options.terminals(name);
    if (!backend) return undefined;
    const terminal = new HostedTerminal(name, backend, this.limits);
    this.terminals.set(name, terminal);
    return terminal;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Streams across all connections whose output is paused; the gate's journey waits on it. */
  pausedStreamCount(): number {
    let paused = 0;
    for (const connection of this.connections) for (const stream of connection.openStreams()) if (stream.isPaused) paused++;
    return paused;
  }

  connectionClosed(connection: HostConnection): void {
    this.connections.delete(connection);
  }

  /** Closes every connection and kills every terminal. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const connection of [...this.connections]) connection.close('host closed');
    for (const terminal of this.terminals.values()) terminal.dispose();
    this.terminals.clear();
  }
}
