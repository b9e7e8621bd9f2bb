import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { type ControlMessage, type ControlResponse, type PeerHello, readControl, sendControl } from '../peer/control-channel.js';
import { PEER_PROTOCOL_VERSION } from '../peer/protocol-version.js';
import { entryOf } from '../baseline/bundle-entries.js';
import { mainThreadCpuMs, ProgressDeadline, type ProgressDeadlineLimits, processTreeCpuMs, sampleProcess } from './progress-deadline.js';

/** Peer protocol versions this harness can drive. */
export const SUPPORTED_PEER_PROTOCOLS = { min: 1, max: PEER_PROTOCOL_VERSION } as const;

export const PEER_ENTRY = join('dist', 'compat', 'peer', 'main.js');

export class PeerProtocolError extends Error {
  override readonly name = 'PeerProtocolError';
  readonly code = 'PEER_PROTOCOL_UNSUPPORTED';
}

export interface PeerStartOptions {
  readonly buildDir: string;
  readonly role: 'host' | 'client' | 'codec';
  readonly args?: readonly string[];
  readonly label: string;
  /** How long a peer may take to say hello, counted in its own progress (progress-deadline.ts), not wall time. */
  readonly helloDeadline?: ProgressDeadlineLimits;
  /** Main-thread CPU it may use without answering while calls wait; default BUSY_WITHOUT_ANSWER. */
  readonly busyWithoutAnswer?: BusyLimit;
}

/**
 * A peer imports its build and opens a socket: well under a second of CPU.
 * 20 s of CPU, or 20 s asleep doing nothing, means it will never say hello;
 * waiting for a core on a loaded runner counts for neither.
 */
export const HELLO_DEADLINE: ProgressDeadlineLimits = { cpuBudgetMs: 20_000, idleMs: 20_000 };
const HELLO_CHECK_MS = 250;

/** CPU a peer's main thread may use while calls wait and it answers none: `floorCpuMs`, or a share of the longest waiting call's deadline where that is more. */
export interface BusyLimit {
  readonly floorCpuMs: number;
  readonly shareOfDeadline: number;
}

/**
 * Node answers on a peer's main thread between tasks, and no op a peer
 * serves holds it for a second; 5 s of its CPU without an answer means its
 * event loop is stuck in a loop that will not end (a mutant, a planted
 * break), or works far slower than any release has. Such a peer is stopped
 * at once, its calls refused, instead of each call waiting out its deadline
 * and the peer burning a core meanwhile. Counted in CPU, so a busy machine
 * that starves a peer never looks like one. An op given a longer deadline
 * (a large emit or classify) may use a quarter of it.
 */
export const BUSY_WITHOUT_ANSWER: BusyLimit = { floorCpuMs: 5_000, shareOfDeadline: 1 / 4 };
const BUSY_CHECK_MS = 250;

/** A peer as a journey drives it: a process of its own, or a session of a long-lived one (peer-pool.ts). */
export interface Peer {
  readonly label: string;
  readonly hello: PeerHello['hello'];
  call<T = unknown>(op: string, args?: unknown, timeoutMs?: number): Promise<T>;
  /** The peer's recent stdout/stderr, for diagnostics in findings. */
  recentLog(lines?: number): string[];
  /** Stops it; `cpuMs` then holds the CPU it used. */
  stop(): Promise<void>;
  readonly cpuMs: number;
}

/**
 * One build's peer running as its own process (its own dist, its own
 * node_modules), driven over the fd-3 control channel.
 */
export class PeerProcess implements Peer {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timeoutMs: number }>();
  private readonly logLines: string[] = [];
  private exited = false;
  /** Answers so far, and the main thread's CPU when the busy watch last saw an answer or nothing waiting. */
  private answers = 0;
  private busyWatch: { timer: NodeJS.Timeout; answers: number; cpuMs: number } | undefined;
  /** Why the peer was given up (busy without answering), with the CPU it had used by then. */
  private givenUp: { readonly why: string; readonly cpuMs: number } | undefined;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcess,
    private readonly channel: Duplex,
    readonly hello: PeerHello['hello'],
    private readonly busyLimit: BusyLimit,
  ) {}

  static async start(options: PeerStartOptions): Promise<PeerProcess> {
    const entry = entryOf(options.buildDir, 'peer');
    const child = spawn(process.execPath, [...peerProfileArgs(options), entry, '--role', options.role, ...(options.args ?? [])], {
      cwd: options.buildDir,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: peerEnvironment(),
    });
    const channel = child.stdio[3] as Duplex;
    const log: string[] = [];
    channel.on('error', (error) => log.push(`control channel: ${error.message}`));
    const collect = (chunk: Buffer) => log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);

    let onMessage: (m: ControlMessage) => void = () => undefined;
    readControl(channel, (m) => onMessage(m));
    const hello = await new Promise<PeerHello['hello']>((resolve, reject) => {
      const deadline = new ProgressDeadline(options.helloDeadline ?? HELLO_DEADLINE, Date.now());
      const timer = setInterval(() => {
        const verdict = deadline.check(Date.now(), child.pid === undefined ? undefined : sampleProcess(child.pid));
        if (!verdict.expired) return;
        clearInterval(timer);
        child.kill('SIGKILL'); // a peer that never said hello is not left running
        reject(new Error(`${options.label}: no hello from peer: ${verdict.why}; its output:\n${log.slice(-20).join('\n')}`));
      }, HELLO_CHECK_MS);
      child.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`${options.label}: peer exited with code ${code} before saying hello (is ${PEER_ENTRY} in this build?); its output:\n${log.slice(-20).join('\n')}`));
      });
      onMessage = (m) => {
        if ('hello' in m) {
          clearInterval(timer);
          resolve(m.hello);
        }
      };
    });
    const { min, max } = SUPPORTED_PEER_PROTOCOLS;
    if (!(hello.peerProtocol >= min && hello.peerProtocol <= max)) {
      child.kill('SIGKILL');
      throw new PeerProtocolError(
        `${options.label}: peer protocol ${hello.peerProtocol} of build ${hello.version} is outside what this harness drives (${min}..${max}); run the gate from the newer of the two builds`,
      );
    }
    const peer = new PeerProcess(options.label, child, channel, hello, options.busyWithoutAnswer ?? BUSY_WITHOUT_ANSWER);
    peer.logLines.push(...log);
    child.stdout!.on('data', (c: Buffer) => peer.logLines.push(...c.toString('utf8').split('\n').filter(Boolean)));
    child.stderr!.on('data', (c: Buffer) => peer.logLines.push(...c.toString('utf8').split('\n').filter(Boolean)));
    onMessage = (m) => peer.onResponse(m as ControlResponse);
    channel.on('close', () => peer.failPending('its control channel closed'));
    child.on('exit', (code, signal) => {
      peer.exited = true;
      peer.failPending(`peer exited (code ${code}, signal ${signal})`);
    });
    return peer;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The peer's recent stdout/stderr, for diagnostics in findings; `since` a mark() only what came after it. */
  recentLog(lines = 20, since = 0): string[] {
    return this.logLines.slice(since).slice(-lines);
  }

  /** Where the log stands now, for recentLog's `since`. */
  logMark(): number {
    return this.logLines.length;
  }

  get hasExited(): boolean {
    return this.exited;
  }

  /** Whether the process keeps the harness's event loop alive: not while it waits idle in a pool, so a harness that is done exits. */
  keepAlive(yes: boolean): void {
    for (const handle of [this.child, this.channel, this.child.stdout, this.child.stderr] as Array<{ ref?(): void; unref?(): void } | null>) {
      if (yes) handle?.ref?.();
      else handle?.unref?.();
    }
  }

  /** CPU the process and the children it reaped have used so far, in ms (for a peer given up, what it had used then); undefined once it is gone or without /proc. */
  cpuNowMs(): number | undefined {
    if (this.givenUp) return this.givenUp.cpuMs;
    return this.child.pid === undefined || this.exited ? undefined : processTreeCpuMs(this.child.pid);
  }

  call<T = unknown>(op: string, args?: unknown, timeoutMs = 15_000, label = this.label): Promise<T> {
    if (this.givenUp) return Promise.reject(new Error(`${label}: cannot ${op}: ${this.givenUp.why}`));
    if (this.exited) return Promise.reject(new Error(`${label}: peer has exited; cannot ${op}`));
    this.watchBusy();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${label}: control op '${op}' got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        timeoutMs,
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(label === this.label ? e : new Error(e.message.replace(this.label, label)))),
      });
      sendControl(this.channel, { id, op, args });
    });
  }

  private failPending(why: string): void {
    for (const p of this.pending.values()) p.reject(new Error(`${this.label}: ${why}`));
    this.pending.clear();
  }

  /**
   * While calls wait, samples the main thread's CPU (BUSY_CHECK_MS): once it
   * has used its BusyLimit since the last answer, the peer is given up. Where /proc is absent, each call's own deadline stands.
   */
  private watchBusy(): void {
    const pid = this.child.pid;
    if (this.busyWatch || pid === undefined) return;
    const cpuMs = mainThreadCpuMs(pid);
    if (cpuMs === undefined) return;
    const watch = { answers: this.answers, cpuMs, timer: setInterval(() => this.checkBusy(pid, watch), BUSY_CHECK_MS) };
    watch.timer.unref();
    this.busyWatch = watch;
  }

  private checkBusy(pid: number, watch: { answers: number; cpuMs: number }): void {
    const cpuMs = this.exited ? undefined : mainThreadCpuMs(pid);
    if (cpuMs === undefined || this.pending.size === 0) {
      clearInterval(this.busyWatch?.timer);
      this.busyWatch = undefined;
      return;
    }
    if (this.answers !== watch.answers) [watch.answers, watch.cpuMs] = [this.answers, cpuMs];
    const busyMs = cpuMs - watch.cpuMs;
    const limitMs = Math.max(this.busyLimit.floorCpuMs, ...[...this.pending.values()].map((p) => p.timeoutMs * this.busyLimit.shareOfDeadline));
    if (busyMs < limitMs) return;
    clearInterval(this.busyWatch?.timer);
    this.busyWatch = undefined;
    const why = `its event loop answered nothing while its main thread used ${Math.round(busyMs)} ms of CPU (limit ${Math.round(limitMs)} ms): it is stuck in a loop, or far slower than any op needs, and was stopped`;
    this.givenUp = { why, cpuMs: processTreeCpuMs(pid) ?? 0 };
    this.exited = true;
    this.child.kill('SIGKILL');
    this.failPending(why);
  }

  private onResponse(response: ControlResponse): void {
    this.answers++;
    const waiter = this.pending.get(response.id);
    if (!waiter) return;
    this.pending.delete(response.id);
    if (response.ok) waiter.resolve(response.result);
    else waiter.reject(new Error(`${this.label}: ${response.error}`));
  }

  /** CPU the peer and the children it reaped (its shells) had used when it was asked to stop; 0 before, or without /proc. */
  cpuMs = 0;

  /** Asks the peer to shut down, and kills it if it does not exit promptly. */
  async stop(): Promise<void> {
    if (this.givenUp) this.cpuMs = this.givenUp.cpuMs;
    if (this.exited) return;
    if (this.child.pid !== undefined) this.cpuMs = processTreeCpuMs(this.child.pid) ?? 0;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    await this.call('shutdown', undefined, 3_000).catch(() => undefined);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Peers run as in production, whoever starts the gate: under a test runner
 * (VITEST, NODE_ENV=test) a send gate would throw where production drops and
 * counts, and the gate must judge what production does.
 */
function peerEnvironment(): NodeJS.ProcessEnv {
  const { VITEST: _vitest, VITEST_WORKER_ID: _worker, VITEST_POOL_ID: _pool, NODE_ENV: _mode, ...rest } = process.env;
  return { ...rest, NO_COLOR: '1' };
}

/** The environment variable that names the directory peers leave their CPU profiles in (peerProfileArgs). */
export const PEER_PROFILE_ENV = 'TERMWIRE_PEER_CPU_PROFILE';

let profiledPeers = 0;

/**
 * With TERMWIRE_PEER_CPU_PROFILE naming a directory, every peer starts under
 * V8's sampling profiler and, when it exits, leaves a profile per thread (its
 * screen worker's too) in a directory of its own: `<role>-<label>-<n>`. A
 * peer killed or given up leaves none. `npm run peer-profile -- <dir>` says
 * where a run's peer CPU went, role by role and function by function.
 */
export function peerProfileArgs({ role, label }: Pick<PeerStartOptions, 'role' | 'label'>, env: NodeJS.ProcessEnv = process.env): string[] {
  const dir = env[PEER_PROFILE_ENV];
  if (!dir) return [];
  const name = `${role}-${label.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^-|-$/g, '')}-${++profiledPeers}`;
  // Absolute: a peer runs in its build's directory, where a relative one would land.
  return ['--cpu-prof', `--cpu-prof-dir=${resolve(dir, name)}`];
}

