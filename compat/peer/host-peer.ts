import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { ungatedSends } from '../../src/capabilities/send-gate.js';
import type { HostLimits } from '../../src/host/options.js';
import { PtyBackend } from '../../src/host/pty-backend.js';
import { HostRuntime } from '../../src/host/runtime.js';
import type { TerminalSession } from '../../src/host/session-environment.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import type { TerminalBackend, WriteOutcome } from '../../src/host/terminal.js';
import type { FrameLink } from '../../src/transport/link.js';
import { streamLink } from '../../src/transport/stream.js';
import { startWsServer } from '../../src/transport/ws-server.js';
import type { HostPeerOp } from './peer-ops.js';
import { PEER_PROTOCOL_VERSION } from './protocol-version.js';
import type { PeerSession } from './serve-control.js';
import { buildVersion } from './version.js';

const TERMINAL = 'main';
/** A second terminal the journey's driving client subscribes beside 'main', on the same connection (step twoStreams). */
const SIDE_TERMINAL = 'side';

/**
 * The host peer runs with limits small enough for a journey step to reach each
 * of them with a few frames (the step limitsReached), and with spare script
 * terminals to start. No other step comes near them: the journey has one
 * terminal and at most two streams per connection. Both builds of a gate run
 * must agree on this table, or the step's frames differ.
 */
export const JOURNEY_HOST_LIMITS = { maxTerminals: 4, maxTerminalsPerConnection: 2, maxStreamsPerConnection: 4 } as const;
const SPARE_TERMINALS = ['spare-1', 'spare-2', 'spare-3', 'spare-4', 'spare-5', 'spare-6'] as const;

export type HostPeerBackend = 'script' | 'pty';

/** What the host peer's terminal is: deterministic for frame comparison, or a real shell for outcomes. */
interface PeerTerminal {
  /** Made on the first subscribe, when the host is listening: a shell's first prompt must not be lost. `session` is what the host made of the Subscribe's environment. */
  backend(session: TerminalSession): TerminalBackend;
  inputLog(): string;
  emit(text: string): void;
  /** The next write comes to `outcome`: 'unknown' still reaches the terminal, 'refused' does not. */
  failNextWrite(outcome: Exclude<WriteOutcome, 'written'>): void;
  /** Ends the running terminal by a signal (SIGTERM), as a killed program ends. */
  kill(): void;
}

function scriptTerminal(): PeerTerminal {
  // One script terminal per instance: once one exited, the next subscribe to the name starts a fresh one, as a shell would start again.
  const instances: ScriptBackend[] = [];
  let nextOutcome: Exclude<WriteOutcome, 'written'> | undefined;
  const start = (): ScriptBackend => {
    const backend = new ScriptBackend();
    const write = backend.write.bind(backend);
    backend.write = (data: string) => {
      const outcome = nextOutcome;
      nextOutcome = undefined;
      if (outcome === 'refused') return 'refused';
      const written = write(data);
      return outcome ?? written;
    };
    instances.push(backend);
    return backend;
  };
  const current = () => instances.at(-1) ?? start();
  return {
    backend: () => (current().exited ? start() : current()),
    inputLog: () => instances.map((i) => i.inputLog()).join(''),
    emit: (text) => current().emit(text),
    failNextWrite: (outcome) => (nextOutcome = outcome),
    kill: () => current().kill(),
  };
}

/** The link as the host sees it, noting the most bytes ever waiting in its socket buffer (after each send). */
function measuredLink(link: FrameLink, peak: { bytes: number }): FrameLink {
  return {
    send: (frame) => {
      link.send(frame);
      peak.bytes = Math.max(peak.bytes, link.bufferedBytes);
    },
    // The code too: a limit closes with 1008, and the gate records what the host sends (v0.2.0's peer sent 1001).
    close: (reason, code) => link.close(reason, code),
    get bufferedBytes() {
      return link.bufferedBytes;
    },
    get isOpen() {
      return link.isOpen;
    },
    attach: (handlers) => link.attach(handlers),
  };
}

/** A real bash in a PTY; what the host wrote to it is logged here, since a PTY keeps no record. */
function ptyTerminal(): PeerTerminal {
  let log = '';
  const start = (session: TerminalSession): TerminalBackend => {
    // The shell starts as `termwire serve` starts one (src/cli/serve.ts), with the TERM and variables the host kept of the Subscribe's.
    const backend = new PtyBackend({ command: 'bash', args: ['--noprofile', '--norc'], term: session.term, env: { ...session.env, PS1: '$ ', HISTFILE: '/dev/null' } });
    const write = backend.write.bind(backend);
    backend.write = (data: string) => {
      const outcome = write(data);
      if (outcome === 'written') log += data;
      return outcome;
    };
    return backend;
  };
  return {
    backend: start,
    inputLog: () => log,
    emit: () => {
      throw new Error('emit needs the script backend: a real shell only prints what it is asked to run');
    },
    failNextWrite: () => {
      throw new Error('failNextWrite needs the script backend');
    },
    kill: () => {
      throw new Error('kill needs the script backend');
    },
  };
}

/** A TCP server whose every connection is a byte-stream link, on a free local port. */
async function listenForStreams(onLink: (link: FrameLink) => void): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    onLink(streamLink(socket));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `tcp://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A reference host serving one terminal named 'main', and spare script terminals for the limits step; `limits` are what the gate set (`--detached-idle-ms`, `--flow-limits`). */
export async function openHostSession(kind: HostPeerBackend = 'script', limits: Partial<HostLimits> = {}): Promise<PeerSession> {
  const terminal = kind === 'pty' ? ptyTerminal() : scriptTerminal();
  const spare = (name: string) => ((SPARE_TERMINALS as readonly string[]).includes(name) ? new ScriptBackend() : undefined);
  const side = scriptTerminal();
  const host = new HostRuntime({ terminals: (name, session) => (name === TERMINAL ? terminal.backend(session) : name === SIDE_TERMINAL ? side.backend(session) : spare(name)), limits: { ...JOURNEY_HOST_LIMITS, ...limits } });
  const token = randomBytes(16).toString('hex');
  const peak = { bytes: 0 };
  const server = await startWsServer({ token, onLink: (link) => host.accept(measuredLink(link, peak)) });
  // The byte-stream transport beside it: the same host, on a length-framed TCP stream (the gate's byte-stream pass).
  const streamServer = await listenForStreams((link) => host.accept(measuredLink(link, peak)));
  let lastHosted: ReturnType<typeof host.terminal>;
  const handlers: Record<HostPeerOp, (args: any) => unknown> = {
    emit: ({ text }: { text: string }) => terminal.emit(text),
    failNextWrite: ({ outcome }: { outcome: 'unknown' | 'refused' }) => terminal.failNextWrite(outcome),
    kill: () => terminal.kill(),
    emitOn: ({ terminal: name, text }: { terminal: string; text: string }) => {
      if (name !== SIDE_TERMINAL && name !== TERMINAL) throw new Error(`emitOn: no terminal '${name}' to print on (${TERMINAL}, ${SIDE_TERMINAL})`);
      (name === TERMINAL ? terminal : side).emit(text);
    },
    limits: () => ({ limits: host.limits, spareTerminals: SPARE_TERMINALS }),
    state: async (args?: { inputLogFrom?: number }) => {
      // An exited terminal leaves the runtime (its name then starts a new one); its screen is still the outcome to compare.
      const hosted = (lastHosted = host.terminal(TERMINAL) ?? lastHosted);
      const screen = (await hosted?.screen.text()) ?? '';
      const running = host.terminal(TERMINAL);
      const inputLog = terminal.inputLog();
      const from = args?.inputLogFrom;
      return {
        // The log only grows: a caller that holds its first `from` characters gets the rest (a paste put tens of KiB in every poll).
        ...(from !== undefined && Number.isSafeInteger(from) && from >= 0 && from <= inputLog.length ? { inputLogFrom: from, inputLogAdded: inputLog.slice(from) } : { inputLog }),
        screen,
        pausedStreams: host.pausedStreamCount(),
        errors: [],
        peakBufferedBytes: peak.bytes,
        ungatedSends: ungatedSends(),
        size: hosted ? { cols: hosted.cols, rows: hosted.rows } : null,
        terminal: running ? { running: true, subscribers: running.subscriberCount } : { running: false, subscribers: 0 },
      };
    },
  };
  return {
    hello: { peerProtocol: PEER_PROTOCOL_VERSION, role: 'host', version: buildVersion(), advertised: { ...host.capabilities } as Record<string, number>, url: server.url, token, streamUrl: streamServer.url },
    handlers,
    close: async () => {
      await host.close();
      await Promise.all([server.close(), streamServer.close()]);
    },
  };
}
