import { randomUUID } from 'node:crypto';
import { DEFAULT_HOST_CAPABILITIES } from '../capabilities/defaults.js';
import { PROJECTIONS } from '../capabilities/projection-table.js';
import { ProjectionRegistry } from '../capabilities/projections.js';
import type { CapabilitySet } from '../capabilities/registry.js';
import type { SendGateMode } from '../capabilities/send-gate.js';
import { InputLedger } from '../delivery/ledger.js';
import { resolveDeliveryOptions, type DeliveryOptions } from '../delivery/options.js';
import type { FrameLink } from '../transport/link.js';
import { type ConnectionHost, HostConnection, type Starter, type TerminalLookup } from './host-connection.js';
import { HostedTerminal } from './hosted-terminal.js';
import { ScreenThread, type ScreenThreadKind } from './screen-thread.js';
import { ExitMemory, type RememberedExit } from './exit-memory.js';
import { DEFAULT_HOST_OPTIONS, type HostCounters, type HostLimits, newCounters } from './options.js';
import { checkScreenLimits, screenCells } from './screen-limits.js';
import { SnapshotShare } from './snapshot-share.js';
import { StartTurns } from './start-turns.js';
import type { TerminalBackend } from './terminal.js';
import { terminalSession, type TerminalSession } from './session-environment.js';

const SCREEN_BEHIND_LOG_EVERY_MS = 60_000;

export interface HostRuntimeOptions {
  /** Makes the terminal for a name on its first Subscribe, in the session that Subscribe asked for, or undefined when there is none (TERMINAL_NOT_FOUND). */
  readonly terminals: (name: string, session: TerminalSession) => TerminalBackend | undefined;
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
  /** Makes each terminal's instanceId; default 96 random bits in hex. Ids must never repeat across runtimes. */
  readonly newInstanceId?: () => string;
  /** Where terminal screens are parsed (see ScreenThreadKind). Default 'worker'. */
  readonly screenThread?: ScreenThreadKind;
  /** Where the host says what it did on its own (a detached terminal ended for a newcomer), one line each. Default: nowhere. */
  readonly log?: (line: string) => void;
}

/**
 * The reference host: serves named terminals to any number of connections.
 *
 * Lifecycle: a terminal starts on the first Subscribe to its name and
 * outlives connections, so a client that reconnects finds it where it left
 * it. When its process exits it is removed: the next Subscribe to the name
 * starts a new one, with a new instanceId. A terminal nobody has subscribed
 * to for detachedTerminalIdleMs is ended. Running terminals are capped per
 * server and per starting connection.
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
  readonly snapshotShare: SnapshotShare;
  readonly terminalStarts: StartTurns;
  private readonly screenBehindLogged = new WeakMap<HostedTerminal, number>();
  private readonly terminals = new Map<string, HostedTerminal>();
  private screenThread: ScreenThread | undefined;
  /** Who started each running terminal, for maxTerminalsPerConnection: kept until the terminal ends, whatever becomes of the connection. */
  private readonly startedBy = new Map<HostedTerminal, Starter>();
  private readonly idleTimers = new Map<HostedTerminal, NodeJS.Timeout>();
  /** Exited terminals whose screen a subscriber still holds: their memory counts in maxTotalScreenCells. */
  private readonly exitedWithViewers = new Set<HostedTerminal>();
  private readonly exits: ExitMemory;
  private readonly connections = new Set<HostConnection>();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: HostRuntimeOptions) {
    this.limits = Object.freeze({ ...DEFAULT_HOST_OPTIONS, ...options.limits });
    checkScreenLimits(this.limits);
    this.exits = new ExitMemory(this.limits.rememberedExits);
    this.snapshotShare = new SnapshotShare(this.limits.maxTotalSnapshotBytesPerSecond);
    this.terminalStarts = new StartTurns(this.limits.maxTerminalStartsPerSecond);
    this.capabilities = { ...(options.capabilities ?? DEFAULT_HOST_CAPABILITIES) };
    this.gateMode = options.sendGateMode;
    this.projections = options.projections ?? new ProjectionRegistry(PROJECTIONS);
    this.ledger = new InputLedger(options.ledgerId ?? randomUUID(), resolveDeliveryOptions(options.delivery));
  }

  /**
   * Serves one client over `link` until either side closes it. `peer.source`
   * names the network it came from (the transport's networkSource): terminals
   * it starts count against that network, across reconnects.
   */
  accept(link: FrameLink, peer: { readonly source?: string } = {}): HostConnection {
    if (this.closed) {
      link.close('host closed');
      throw new Error('HostRuntime.accept after close()');
    }
    const connection = new HostConnection(link, this, peer.source);
    this.connections.add(connection);
    return connection;
  }

  /** A terminal already opened by a Subscribe (or by openTerminal), for inspection. */
  terminal(name: string): HostedTerminal | undefined {
    return this.terminals.get(name);
  }

  /** The terminal by name, created by the factory on first use; undefined when there is none or a limit refuses it. */
  openTerminal(name: string): HostedTerminal | undefined {
    const found = this.terminalFor(name, this);
    return 'terminal' in found ? found.terminal : undefined;
  }

  /** The running terminal by name, or a new one started on behalf of `starter` when the limits allow. */
  terminalFor(name: string, starter: Starter, environment?: Readonly<Record<string, string>>): TerminalLookup {
    if (this.closed) return { refused: 'TERMINAL_NOT_FOUND', message: 'the host is shutting down' };
    const existing = this.terminals.get(name);
    if (existing) return { terminal: existing };
    const refusal = this.startRefusal(starter);
    if (refusal) return refusal;
    const backend = this.options.terminals(name, terminalSession(environment));
    if (!backend) return { refused: 'TERMINAL_NOT_FOUND', message: `no terminal named '${name}'` };
    const terminal = new HostedTerminal(name, backend, this.limits, {
      exited: (t) => this.retire(t),
      subscribersChanged: (t) => this.watchIdle(t),
      subscriberFailed: () => void this.counters.internalErrors++,
      screenBehind: (t, behind, backlogMs) => {
        if (behind) this.logScreenBehind(t, backlogMs);
      },
      sizeRefusal: (t, cols, rows) => this.screenBudgetRefusal(t, cols, rows),
      screenBacklogShare: () => this.screenBacklogShare(),
      outputHistoryShare: () => this.outputHistoryShare(),
    }, this.options.newInstanceId, (this.screenThread ??= ScreenThread.of(this.options.screenThread ?? 'worker')));
    this.terminals.set(name, terminal);
    this.terminalStarts.used();
    for (const t of [...this.terminals.values(), ...this.exitedWithViewers]) t.trimHistory();
    this.startedBy.set(terminal, starter);
    this.watchIdle(terminal);
    return { terminal };
  }

  hasTerminal(name: string): boolean {
    return this.terminals.has(name);
  }

  exitOf(name: string, instanceId: string): RememberedExit | undefined {
    return this.exits.find(name, instanceId);
  }

  /** Running terminals (an exited one is no longer counted). */
  get terminalCount(): number {
    return this.terminals.size;
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

  /**
   * Closes every connection and ends every terminal: SIGHUP, then SIGKILL
   * after terminalKillGraceMs. Resolves once every process is gone.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    for (const connection of [...this.connections]) connection.close('host closed');
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    const running = [...this.terminals.values()];
    this.terminals.clear();
    this.exitedWithViewers.clear();
    this.startedBy.clear();
    this.closing = Promise.all(running.map((t) => t.end(this.limits.terminalKillGraceMs))).then(() => undefined);
    return this.closing;
  }

  /** Cells the screens still held may hold, all but `except`: running terminals, and exited ones whose screen a viewer still holds. */
  private screenCellsInUse(except?: HostedTerminal): number {
    let cells = 0;
    for (const t of [...this.terminals.values(), ...this.exitedWithViewers]) if (t !== except) cells += screenCells(t.plannedSize.cols, t.plannedSize.rows, this.limits);
    return cells;
  }

  /**
   * The screen backlog each running terminal may have: maxTotalScreenBacklogBytes
   * split evenly, never under one Output piece. Every terminal's backlog as it
   * counts it is at least what its screen really has queued, so the queues of
   * all screens together stay within the budget (plus a piece each): what gives
   * way first is the pace of the printers, held until their screens catch up;
   * no output is dropped.
   */
  private screenBacklogShare(): number {
    return Math.max(this.limits.outputFrameBytes, Math.floor(this.limits.maxTotalScreenBacklogBytes / Math.max(1, this.terminals.size)));
  }

  /**
   * The output history each terminal may keep: maxTotalOutputHistoryBytes
   * split evenly over the running terminals and the exited ones a viewer
   * still holds. Every terminal trims to its share as it appends, and all of
   * them when one starts, so the histories together never pass the budget.
   */
  private outputHistoryShare(): number {
    return Math.floor(this.limits.maxTotalOutputHistoryBytes / Math.max(1, this.terminals.size + this.exitedWithViewers.size));
  }

  /** A terminal may always shrink; it may grow only while all screens together stay within maxTotalScreenCells. */
  private screenBudgetRefusal(terminal: HostedTerminal, cols: number, rows: number): string | undefined {
    const wanted = screenCells(cols, rows, this.limits);
    if (wanted <= screenCells(terminal.plannedSize.cols, terminal.plannedSize.rows, this.limits)) return undefined;
    const total = this.screenCellsInUse(terminal) + wanted;
    return total > this.limits.maxTotalScreenCells ? `${cols}x${rows} would bring the screens on this host to ${total} cells > maxTotalScreenCells ${this.limits.maxTotalScreenCells}` : undefined;
  }

  private startRefusal(starter: Starter): TerminalLookup | undefined {
    const { maxTerminals, maxTerminalsPerConnection, maxTotalScreenCells } = this.limits;
    const needed = screenCells(this.limits.defaultCols, this.limits.defaultRows, this.limits);
    while (this.terminals.size >= maxTerminals || this.screenCellsInUse() + needed > maxTotalScreenCells) {
      if (!this.evictForNewcomer(starter)) break;
    }
    if (this.terminals.size >= maxTerminals) {
      return { refused: 'TERMINALS_PER_SERVER_LIMIT', message: `${this.terminals.size} running terminals, maxTerminals ${maxTerminals}` };
    }
    const inUse = this.screenCellsInUse();
    if (inUse + needed > maxTotalScreenCells) {
      return { refused: 'TERMINALS_PER_SERVER_LIMIT', message: `the screens on this host hold ${inUse} cells and a new terminal needs ${needed} > maxTotalScreenCells ${maxTotalScreenCells}` };
    }
    let mine = 0;
    for (const s of this.startedBy.values()) if (s === starter) mine++;
    if (starter !== this && mine >= maxTerminalsPerConnection) {
      const by = typeof starter === 'string' ? `from ${starter} (by this connection or an earlier one)` : 'by this connection';
      return { refused: 'TERMINALS_PER_CONNECTION_LIMIT', message: `${mine} running terminals started ${by}, maxTerminalsPerConnection ${maxTerminalsPerConnection}` };
    }
    return undefined;
  }

  /**
   * Makes room for a starter the host is full for: the detached terminal
   * (no subscriber) detached longest, of the holder running the most
   * terminals, gives way, as long as that holder runs at least two more than
   * `starter` does. Five clients that left 16 terminals each could otherwise
   * lock everyone out of maxTerminals for detachedTerminalIdleMs (an hour).
   * An attached terminal is never ended for this. False when nothing may go.
   */
  private evictForNewcomer(starter: Starter): boolean {
    const held = new Map<Starter, number>();
    for (const s of this.startedBy.values()) held.set(s, (held.get(s) ?? 0) + 1);
    const mine = held.get(starter) ?? 0;
    let victim: HostedTerminal | undefined;
    // idleTimers holds exactly the detached terminals, in the order they were detached.
    for (const terminal of this.idleTimers.keys()) {
      const holder = this.startedBy.get(terminal);
      if (holder === undefined || holder === starter || holder === this) continue;
      const count = held.get(holder)!;
      if (count < mine + 2) continue;
      if (!victim || count > held.get(this.startedBy.get(victim)!)!) victim = terminal;
    }
    if (!victim) return false;
    const holder = this.startedBy.get(victim)!;
    this.terminals.delete(victim.name);
    this.startedBy.delete(victim);
    this.clearIdle(victim);
    this.counters.terminalsEvicted++;
    const by = typeof holder === 'string' ? `from ${holder}` : 'by a connection';
    this.options.log?.(`termwire: TERMINAL_EVICTED: detached terminal '${victim.name}' ended for a newcomer: ${held.get(holder)} running terminals started ${by}, the most on this host, at maxTerminals ${this.limits.maxTerminals}`);
    void victim.end(this.limits.terminalKillGraceMs);
    return true;
  }

  /** At most once a minute per terminal: a program that keeps printing costly output falls behind again every few seconds. */
  private logScreenBehind(terminal: HostedTerminal, backlogMs: number): void {
    const now = Date.now();
    if (now - (this.screenBehindLogged.get(terminal) ?? -Infinity) < SCREEN_BEHIND_LOG_EVERY_MS) return;
    this.screenBehindLogged.set(terminal, now);
    this.options.log?.(`termwire: SCREEN_BEHIND: terminal '${terminal.name}' has about ${backlogMs} ms of output to parse > maxScreenBacklogMs ${this.limits.maxScreenBacklogMs}; it is not read until its screen is down to half`);
  }

  /** The process exited: the name is free again; the screen stays until its last stream lets go, and counts in the screen budget until then. */
  private retire(terminal: HostedTerminal): void {
    if (terminal.exit) this.exits.remember({ name: terminal.name, instanceId: terminal.instanceId, exit: terminal.exit, seq: terminal.seq, cols: terminal.cols, rows: terminal.rows });
    if (this.terminals.get(terminal.name) === terminal) this.terminals.delete(terminal.name);
    this.startedBy.delete(terminal);
    this.clearIdle(terminal);
    if (terminal.subscriberCount === 0) terminal.dispose();
    else this.exitedWithViewers.add(terminal);
  }

  private watchIdle(terminal: HostedTerminal): void {
    if (terminal.exit) {
      if (terminal.subscriberCount === 0) {
        this.exitedWithViewers.delete(terminal);
        terminal.dispose();
      }
      return;
    }
    if (terminal.subscriberCount > 0) return this.clearIdle(terminal);
    if (this.idleTimers.has(terminal) || this.closed) return;
    const timer = setTimeout(() => {
      this.idleTimers.delete(terminal);
      void terminal.end(this.limits.terminalKillGraceMs);
    }, this.limits.detachedTerminalIdleMs);
    timer.unref();
    this.idleTimers.set(terminal, timer);
  }

  private clearIdle(terminal: HostedTerminal): void {
    clearTimeout(this.idleTimers.get(terminal));
    this.idleTimers.delete(terminal);
  }
}
