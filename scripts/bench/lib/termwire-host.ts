import { TerminalClient } from '../../../src/client/client.js';
import type { ClientStream } from '../../../src/client/stream.js';
import type { HostConnection } from '../../../src/host/host-connection.js';
import type { HostStream } from '../../../src/host/host-stream.js';
import { HostRuntime } from '../../../src/host/runtime.js';
import { ScriptBackend } from '../../../src/host/script-backend.js';
import { connectWs } from '../../../src/transport/ws-client.js';
import { startWsServer, type WsServer } from '../../../src/transport/ws-server.js';

const TOKEN = 'termwire-bench';
const NOTHING = new Uint8Array(0);
/** A trial that delivers nothing for this long fails the bench instead of hanging it. */
const OUTPUT_DEADLINE_MS = 120_000;

/** Which screen models parse output; turning one off is a diagnostic that shows what it costs. */
export interface Parsing {
  readonly host: boolean;
  readonly client: boolean;
}

/** One client connection subscribed to its own terminal, with the host's side of its stream. */
export interface BenchStream {
  readonly name: string;
  readonly client: TerminalClient;
  readonly stream: ClientStream;
  readonly hostStream: HostStream;
  readonly backend: ScriptBackend;
}

/** Connect-to-snapshot phases of one new client, in ms from the start. */
export interface AttachTimes {
  readonly connectedMs: number;
  readonly snapshotMs: number;
  readonly idleMs: number;
}

function newClient(url: string): TerminalClient {
  return new TerminalClient({ connect: () => connectWs(url, { token: TOKEN }) });
}

/**
 * The product path end to end in one process: a HostRuntime serving
 * ScriptBackend terminals through startWsServer, and TerminalClients over
 * connectWs with the default capabilities (ackOutput negotiated).
 */
export class TermwireHost {
  private readonly clients: TerminalClient[] = [];

  private constructor(
    readonly runtime: HostRuntime,
    private readonly server: WsServer,
    private readonly backends: ReadonlyMap<string, ScriptBackend>,
    private readonly connections: readonly HostConnection[],
  ) {}

  static async start(): Promise<TermwireHost> {
    const backends = new Map<string, ScriptBackend>();
    const connections: HostConnection[] = [];
    const runtime = new HostRuntime({
      terminals: (name) => {
        const backend = new ScriptBackend({ banner: '' });
        backends.set(name, backend);
        return backend;
      },
    });
    const server = await startWsServer({ token: TOKEN, onLink: (link) => connections.push(runtime.accept(link)) });
    return new TermwireHost(runtime, server, backends, connections);
  }

  /** Fills a terminal before anyone subscribes (the snapshot measure) and waits until the host has parsed it. */
  async prefill(name: string, text: string): Promise<void> {
    const terminal = this.runtime.openTerminal(name);
    if (!terminal) throw new Error(`bench: no terminal '${name}'`);
    this.backends.get(name)!.emit(text);
    await terminal.screen.settled();
  }

  /** A long-lived client subscribed to terminal `name`; a screen switched off does not parse (the host's is stubbed, the client's replaced by a sink). */
  async subscribe(name: string, parsing: Parsing): Promise<BenchStream> {
    const client = newClient(this.server.url);
    this.clients.push(client);
    client.start();
    // Without the client screen, output goes to a sink that takes it at once, as attach's terminal would.
    const stream = client.subscribe(name, parsing.client ? {} : { outputSink: (_text, delivered) => delivered() });
    await stream.next('snapshot');
    await stream.whenIdle();
    const hostStream = this.connections.map((c) => c.stream(stream.id)).find((s) => s?.terminal.name === name);
    if (!hostStream) throw new Error(`bench: no host stream for terminal '${name}'`);
    if (!parsing.host) {
      // Nothing is parsed, but the seq still moves: the terminal's screen-backlog hold (screenBacklogBytes) sees its screen keep up.
      const screen = hostStream.terminal.screen;
      const write = screen.write.bind(screen);
      screen.write = (_data, seqAfter) => write(NOTHING, seqAfter);
    }
    return { name, client, stream, hostStream, backend: this.backends.get(name)! };
  }

  /**
   * Emits `totalBytes` of output in chunks as fast as the host's flow control
   * lets it (the next chunk goes once the stream has nothing queued for
   * credit and the terminal is read). Returns seconds until the client received the last byte, and
   * until its screen had parsed it (whenIdle).
   */
  async output(bench: BenchStream, chunk: string, totalBytes: number): Promise<{ receivedS: number; parsedS: number }> {
    const { stream, hostStream, backend } = bench;
    const before = { ...stream.counters };
    const droppedBefore = this.runtime.counters.droppedOutputBytes;
    let emitted = 0;
    const start = performance.now();
    await new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => {
        off();
        reject(new Error(`bench: ${stream.counters.outputBytes - before.outputBytes} of ${totalBytes} bytes reached the client within ${OUTPUT_DEADLINE_MS} ms (${emitted} emitted)`));
      }, OUTPUT_DEADLINE_MS);
      const off = stream.on('output', () => {
        if (stream.counters.outputBytes - before.outputBytes < totalBytes) return;
        off();
        clearTimeout(deadline);
        resolve();
      });
      const pump = () => {
        // A program blocks on a full PTY: the pump also waits while the terminal is not read (its screen is screenBacklogBytes behind).
        while (emitted < totalBytes && hostStream.queuedBytes === 0 && !backend.isPaused) {
          backend.emit(chunk);
          emitted += chunk.length;
        }
        if (emitted < totalBytes) setImmediate(pump);
      };
      pump();
    });
    const received = performance.now();
    await stream.whenIdle();
    const parsed = performance.now();
    // The host's screen parses behind the wire; let it finish so the next trial starts from quiet.
    await hostStream.terminal.screen.settled();
    const skipped = stream.counters.gaps - before.gaps + stream.counters.outputIgnored - before.outputIgnored;
    const dropped = this.runtime.counters.droppedOutputBytes - droppedBefore;
    if (skipped > 0 || dropped > 0) throw new Error(`bench: output was not delivered whole (${skipped} gaps/ignored frames, ${dropped} bytes dropped by the host)`);
    return { receivedS: (received - start) / 1000, parsedS: (parsed - start) / 1000 };
  }

  /** A new client: connect, subscribe, snapshot applied, whenIdle(); then it closes and the host forgets it. */
  async attach(name: string): Promise<AttachTimes> {
    const start = performance.now();
    const client = newClient(this.server.url);
    const connected = client.next('connected');
    client.start();
    const stream = client.subscribe(name);
    const snapshot = stream.next('snapshot');
    await connected;
    const connectedMs = performance.now() - start;
    await snapshot;
    const snapshotMs = performance.now() - start;
    await stream.whenIdle();
    const idleMs = performance.now() - start;
    client.close();
    const others = this.clients.length;
    while (this.runtime.connectionCount > others) await new Promise((resolve) => setImmediate(resolve));
    return { connectedMs, snapshotMs, idleMs };
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.close();
    this.runtime.close();
    await this.server.close();
  }
}
