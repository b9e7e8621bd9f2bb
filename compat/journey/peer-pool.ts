import type { PeerHello } from '../peer/control-channel.js';
import { type Peer, PeerProcess, type PeerStartOptions } from './peer-process.js';

/**
 * Long-lived peers: a build whose codec peer names a role in `sessionRoles`
 * runs that role's hosts or clients one after another in one process started
 * with `--sessions`, so a gate run pays a process start (mostly module
 * loading, most of a short pairing's CPU) per build, role and lane instead of
 * per pairing. A process serves one session at a time, so pairings walked side
 * by side never share an event loop and time each other's steps. A build
 * without sessions gets a process per peer, as before.
 */
const idle = new Map<string, PeerProcess[]>();
/** Each build's codec peer, started once for the gate run: it decodes each request on its own and keeps nothing between them, whatever its build. */
const codecs = new Map<string, CodecEntry>();

/** A shared codec process, its users, and how much of its CPU a use has booked so far (so uses that overlap book it once). */
interface CodecEntry {
  readonly started: Promise<PeerProcess>;
  users: number;
  bookedCpuMs: number;
}
/** How long a session may take to open or to close (its host ends its terminals) before its process is given up. */
const SESSION_OP_MS = 20_000;

export interface PeerWanted extends PeerStartOptions {
  readonly role: 'host' | 'client';
  /** Whether the build's peer serves sessions (its codec peer's `sessionRoles` names the role). */
  readonly sessions: boolean;
}

/** A host or client peer for one pairing: a session of a pooled process where the build has them, its own process otherwise. */
export async function startPeer(wanted: PeerWanted): Promise<Peer> {
  if (!wanted.sessions) return PeerProcess.start(wanted);
  const key = poolKey(wanted);
  let process = takeIdle(key);
  const fresh = !process;
  process ??= await PeerProcess.start({ ...wanted, args: ['--sessions'] });
  process.keepAlive(true);
  const cpuAtOpen = fresh ? 0 : (process.cpuNowMs() ?? 0);
  const logMark = process.logMark();
  try {
    const hello = await process.call<PeerHello['hello']>('open', { argv: wanted.args ?? [] }, SESSION_OP_MS, wanted.label);
    return new PeerSessionLease(wanted.label, hello, process, key, cpuAtOpen, logMark);
  } catch (error) {
    await process.stop();
    throw error;
  }
}

/** A build's codec peer, shared by everything that decodes with it until the pool closes; `stop` hands it back. */
export async function codecPeer(options: PeerStartOptions): Promise<Peer> {
  const fresh = !codecs.has(options.buildDir);
  const entry = codecs.get(options.buildDir) ?? { started: PeerProcess.start(options), users: 0, bookedCpuMs: 0 };
  codecs.set(options.buildDir, entry);
  const process = await entry.started.catch((error: unknown) => {
    if (codecs.get(options.buildDir) === entry) codecs.delete(options.buildDir);
    throw error;
  });
  if (process.hasExited) {
    if (codecs.get(options.buildDir) === entry) codecs.delete(options.buildDir);
    return codecPeer(options);
  }
  if (entry.users++ === 0) process.keepAlive(true);
  // The first use books the process's start, as a long-lived session's first lease does.
  return new SharedCodec(options.label, process, entry, fresh ? 0 : (process.cpuNowMs() ?? 0), () => {
    if (--entry.users === 0) process.keepAlive(false);
  });
}

/** Stops every idle pooled process and the codec peers; a gate run calls it once it is done with its journeys. */
export async function closePeerPool(): Promise<void> {
  const all = [...idle.values()].flat();
  idle.clear();
  const shared = [...codecs.values()];
  codecs.clear();
  await Promise.all([...all.map((p) => p.stop()), ...shared.map(async (c) => (await c.started.catch(() => undefined))?.stop())]);
}

/** How many processes wait idle in the pool (for tests). */
export function idlePeerCount(): number {
  return [...idle.values()].reduce((sum, list) => sum + list.length, 0);
}

const poolKey = (wanted: PeerWanted) => `${wanted.buildDir}\0${wanted.role}`;

function takeIdle(key: string): PeerProcess | undefined {
  const list = idle.get(key) ?? [];
  let process: PeerProcess | undefined;
  while ((process = list.pop()) && process.hasExited);
  return process;
}

class PeerSessionLease implements Peer {
  cpuMs = 0;
  private stopped = false;

  constructor(
    readonly label: string,
    readonly hello: PeerHello['hello'],
    private readonly process: PeerProcess,
    private readonly key: string,
    private readonly cpuAtOpen: number,
    private readonly logMark: number,
  ) {}

  call<T = unknown>(op: string, args?: unknown, timeoutMs?: number): Promise<T> {
    if (this.stopped) return Promise.reject(new Error(`${this.label}: its session is closed; cannot ${op}`));
    return this.process.call<T>(op, args, timeoutMs, this.label);
  }

  recentLog(lines = 20): string[] {
    return this.process.recentLog(lines, this.logMark);
  }

  /** Closes the session and gives the process back to the pool; a process that cannot close its session is stopped instead. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const cpuNow = this.process.cpuNowMs();
    this.cpuMs = cpuNow === undefined ? 0 : cpuNow - this.cpuAtOpen;
    const closed = await this.process.call('close', undefined, SESSION_OP_MS, this.label).then(
      () => true,
      () => false,
    );
    if (!closed || this.process.hasExited) return this.process.stop();
    this.process.keepAlive(false);
    idle.set(this.key, [...(idle.get(this.key) ?? []), this.process]);
  }
}

/** A use of a shared codec peer: its CPU is what the process used meanwhile that no use that overlaps it booked already. */
class SharedCodec implements Peer {
  cpuMs = 0;
  private stopped = false;

  constructor(
    readonly label: string,
    private readonly process: PeerProcess,
    private readonly entry: CodecEntry,
    private readonly cpuAtStart: number,
    private readonly release: () => void,
  ) {}

  get hello(): Peer['hello'] {
    return this.process.hello;
  }

  call<T = unknown>(op: string, args?: unknown, timeoutMs?: number): Promise<T> {
    return this.process.call<T>(op, args, timeoutMs, this.label);
  }

  recentLog(lines = 20): string[] {
    return this.process.recentLog(lines);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const cpuNow = this.process.cpuNowMs() ?? this.cpuAtStart;
    this.cpuMs = Math.max(0, cpuNow - Math.max(this.cpuAtStart, this.entry.bookedCpuMs));
    this.entry.bookedCpuMs = Math.max(this.entry.bookedCpuMs, cpuNow);
    this.release();
  }
}
