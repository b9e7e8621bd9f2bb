import { TerminalClient } from '../../src/client/client.js';
import type { PasteHandle } from '../../src/client/stream-input.js';
import type { ClientStream } from '../../src/client/stream.js';
import { Op } from '../../src/codec/opcodes.js';
import { type DeliveryNotice, splitPaste } from '../../src/delivery/index.js';
import { DEFAULT_DELIVERY_OPTIONS } from '../../src/delivery/options.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { ManualScheduler } from '../client/manual-scheduler.js';
import { ModelTerminal } from './model-terminal.js';
import { seededRandom, type SimConnection, SimNet } from './sim-net.js';

/** One input the model expects: present exactly once and in order, unless optional. */
export interface Unit {
  readonly data: string;
  /** Withdrawn, or reported by the client as dropped or of unknown delivery: present at most once. */
  optional: boolean;
}

/**
 * A paste of at least `size` characters: 64-character lines `<p{id}#{k}>.....`,
 * written into one buffer byte by byte (pastes run to 40 KiB: a native call, or
 * a string, per line head cost more than all the rest).
 */
function pasteText(id: number, size: number): string {
  const lines = Math.ceil(size / 64);
  const text = Buffer.alloc(lines * 64, '.');
  const prefix = Buffer.from(`<p${id}#`, 'latin1');
  for (let k = 0; k < lines; k++) {
    const start = k * 64 + prefix.length;
    for (let i = 0; i < prefix.length; i++) text[k * 64 + i] = prefix[i]!;
    const end = start + decimalDigits(k);
    text[end] = 0x3e; // '>'
    for (let at = end, n = k; at > start; n = Math.floor(n / 10)) text[--at] = 0x30 + (n % 10);
  }
  return text.toString('latin1');
}

/**
 * The model's host parses its screens inline: the screen thread's work is the
 * same either way (ScreenBook), and thousands of schedules each waiting on a
 * worker's thread hops would measure the hops, not the delivery.
 */
const MODEL_SCREEN_THREAD = 'inline';

const decimalDigits = (n: number): number => (n < 10 ? 1 : 1 + decimalDigits(Math.floor(n / 10)));

const isFaultable = (frame: Uint8Array): boolean => frame[2] === Op.Input || frame[2] === Op.InputAck;

/**
 * The system under test, whole: the REAL TerminalClient, ClientStream,
 * journal, HostRuntime, HostConnection and ledger, over the SIMULATED network
 * of sim-net.ts, driven by a virtual clock. The model beside it stays small:
 * the inputs in order and which of them may be absent.
 */
export class ModelWorld {
  readonly random: () => number;
  readonly clock = new ManualScheduler();
  readonly net: SimNet;
  readonly terminal = new ModelTerminal();
  readonly client: TerminalClient;
  readonly stream: ClientStream;
  readonly units: Unit[] = [];
  readonly notices: DeliveryNotice[] = [];
  readonly pastes: Array<{ handle: PasteHandle; units: Unit[] }> = [];
  runtime: HostRuntime;
  /** Every runtime this world started, the restarted ones too: close() ends them all. */
  private readonly runtimes: HostRuntime[] = [];
  restarts = 0;
  unknownFaults = 0;
  unreachable = false;
  current: SimConnection | undefined;
  private typed = 0;

  constructor(readonly seed: number) {
    this.random = seededRandom(seed);
    // Loss and duplication hit the frames exactly-once input must survive: a TCP
    // connection loses nothing else without dying, which the schedule models whole.
    this.net = new SimNet(this.random, isFaultable);
    this.runtime = this.newRuntime();
    this.client = new TerminalClient({
      scheduler: this.clock,
      random: this.random,
      newInputSessionId: () => `session-${seed}`,
      connect: async () => {
        if (this.unreachable) throw new Error('host unreachable (simulated)');
        const connection = this.net.open();
        this.runtime.accept(connection.host);
        this.current = connection;
        return connection.client;
      },
    });
    this.stream = this.client.subscribe('t');
    this.stream.on('inputNotice', (n) => this.noticed(n));
    this.client.start();
  }

  get journal() {
    return this.stream.inputState.journal;
  }

  // ---- the schedule's actions ----------------------------------------------

  type(): string {
    const data = `k${++this.typed};`;
    if (this.stream.write(data)) this.units.push({ data, optional: false });
    return `type ${data}`;
  }

  paste(): string {
    const id = ++this.typed;
    const size = 16 * 1024 + Math.floor(this.random() * 24 * 1024);
    const text = pasteText(id, size);
    const handle = this.stream.paste(text);
    if (!handle) return `paste p${id} refused`;
    const units = splitPaste(text, DEFAULT_DELIVERY_OPTIONS.pasteChunkBytes).map((data) => ({ data, optional: false }));
    this.units.push(...units);
    this.pastes.push({ handle, units });
    return `paste p${id} (${text.length} bytes, ${handle.chunks} chunks)`;
  }

  cancelPaste(): string {
    const paste = this.pastes.shift();
    if (!paste) return 'cancel paste: none';
    const withdrawn = paste.handle.cancel();
    // A chunk the host already had may have been written; the rest must not be.
    for (const u of paste.units) u.optional = true;
    return `cancel paste (${withdrawn} chunks withdrawn)`;
  }

  setLoss(p: number): string {
    this.net.faults.loss = p;
    return `loss ${p}`;
  }

  setDuplicate(p: number): string {
    this.net.faults.duplicate = p;
    return `duplicate ${p}`;
  }

  blackHole(): string {
    if (!this.current || this.current.dead) return 'black hole: no live connection';
    this.current.dead = true;
    return `black hole on connection ${this.current.id}`;
  }

  /** The client's liveness deadline passes on a dead connection. */
  livenessFires(): string {
    const c = this.current;
    if (!c?.dead || !c.client.isOpen) return 'liveness: nothing dead';
    c.client.close('liveness: no pong (simulated)');
    return `liveness closes connection ${c.id}`;
  }

  lateArrival(): string {
    const dead = this.net.connections.filter((c) => c.dead && c.late.length > 0);
    const c = dead[Math.floor(this.random() * dead.length)];
    if (!c) return 'late arrival: none buffered';
    return `late arrival: ${c.deliverLate()} frames of connection ${c.id}`;
  }

  /** The host drops the connection with a reset: both sides notice. */
  replaceConnection(): string {
    const c = this.current;
    if (!c || c.dead || !c.host.isOpen) return 'replace: no live connection';
    c.host.close('reset (simulated)');
    return `reset connection ${c.id}`;
  }

  setUnreachable(on: boolean): string {
    this.unreachable = on;
    return on ? 'host unreachable' : 'host reachable';
  }

  /** A new host runtime (new ledger id) over the SAME terminal; the old one's connections die silently. */
  restartHost(): string {
    for (const c of this.net.connections) {
      c.dead = true;
      c.hostGone = true;
    }
    this.runtime = this.newRuntime();
    return `host runtime restart #${this.restarts}`;
  }

  writeFault(kind: 'refuse' | 'unknownLanded' | 'unknownLost', count = 1): string {
    for (let i = 0; i < count; i++) this.terminal.faults.push(kind);
    if (kind !== 'refuse') this.unknownFaults += count;
    return `next ${count} write(s): ${kind}`;
  }

  async advance(ms: number): Promise<string> {
    this.clock.advance(ms);
    await this.settle();
    return `advance ${ms} ms`;
  }

  /** Delivers everything deliverable and lets the client's connect and the host's snapshot callbacks run. */
  async settle(): Promise<void> {
    for (let round = 0; round < 200; round++) {
      this.net.pump();
      const waiting = this.client.state === 'connecting' || (this.stream.state === 'subscribing' && this.current !== undefined && !this.current.dead && this.current.client.isOpen);
      if (!waiting) return;
      // What a settle waits for runs in microtasks (the client's connect, the host's snapshot of an idle
      // screen, which never waits for xterm's parse timer): a setImmediate lets it run, with no timer tick.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Ends the world: the client, and every runtime with its terminal, whose
   * detached-terminal timer (an hour, real time) would otherwise keep each
   * schedule's screens and writes alive for the rest of the run.
   */
  async close(): Promise<void> {
    this.client.close();
    await Promise.all(this.runtimes.map((r) => r.close()));
  }

  private newRuntime(): HostRuntime {
    this.restarts++;
    // The model terminal outlives a runtime restart (a host that keeps its terminals while its runtime
    // restarts), so it keeps its instance id: only the ledger changes, which is the path this model proves.
    // A terminal replaced by a new shell is proven by test/client/host-restart.test.ts.
    const runtime = new HostRuntime({ terminals: (name) => (name === 't' ? this.terminal : undefined), ledgerId: `ledger-${this.restarts}`, newInstanceId: () => 'model-terminal', sendGateMode: 'throw', screenThread: MODEL_SCREEN_THREAD });
    this.runtimes.push(runtime);
    return runtime;
  }

  private noticed(notice: DeliveryNotice): void {
    this.notices.push(notice);
    const absentAllowed = new Set(notice.entries.map((e) => e.data));
    if (notice.code === 'DELIVERY_UNKNOWN' || notice.code === 'LEDGER_CHANGED') for (const u of this.units) if (absentAllowed.has(u.data)) u.optional = true;
  }
}
