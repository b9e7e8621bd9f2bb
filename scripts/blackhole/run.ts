import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface BlackholeOptions {
  /** Tokens typed. */
  readonly tokens: number;
  /** Between tokens, ms. */
  readonly intervalMs: number;
  /** The link goes down this long after the first token, ms. */
  readonly holeStartMs: number;
  /** ...for this long, ms: longer than the client's liveness deadline (15 s by default). */
  readonly holeMs: number;
  /** Give up after this, ms. */
  readonly timeoutMs: number;
  readonly log?: (line: string) => void;
  /**
   * Keep the hole open past holeMs until the client says its liveness noticed
   * (bounded by timeoutMs): on a starved machine the client's timers run late,
   * and a hole closed on the clock could end before liveness fired.
   */
  readonly holeUntilLivenessFires?: boolean;
  /** The control run: the client advertises no inputAck (today's unsequenced input). */
  readonly unsequenced?: boolean;
}

export interface BlackholeResult {
  readonly typed: number;
  readonly received: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly reordered: number;
  readonly mangled: number;
  readonly events: string[];
}

const ROOT = resolve(import.meta.dirname, '../..');

/** Why a real-network run cannot happen here, or undefined when it can. */
export function blackholeUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: network namespaces need root';
  try {
    const probe = `twprobe${randomBytes(3).toString('hex')}`;
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe' });
  } catch (e) {
    return `ip netns unavailable: ${(e as Error).message.split('\n')[0]}`;
  }
  return undefined;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

/**
 * Two network namespaces joined by a veth pair; a real host process with a
 * real PTY in one, a real client process in the other. The host-side veth is
 * set down (the client sees silence: no reset, no error) for holeMs, then up.
 */
export async function runBlackhole(opts: BlackholeOptions): Promise<BlackholeResult> {
  const log = opts.log ?? (() => {});
  const tag = randomBytes(3).toString('hex');
  const [nsHost, nsClient, vHost, vClient] = [`tw-h-${tag}`, `tw-c-${tag}`, `twh${tag}`, `twc${tag}`];
  const octet = 1 + (parseInt(tag, 16) % 250);
  const [hostIp, clientIp] = [`10.213.${octet}.1`, `10.213.${octet}.2`];
  const dir = mkdtempSync(join(tmpdir(), 'termwire-blackhole-'));
  const out = join(dir, 'stamped.txt');
  const token = randomBytes(16).toString('hex');
  const children: ChildProcess[] = [];
  const events: string[] = [];
  try {
    ip('netns', 'add', nsHost);
    ip('netns', 'add', nsClient);
    ip('link', 'add', 'name', vHost, 'type', 'veth', 'peer', 'name', vClient);
    ip('link', 'set', vHost, 'netns', nsHost);
    ip('link', 'set', vClient, 'netns', nsClient);
    ip('-n', nsHost, 'addr', 'add', `${hostIp}/24`, 'dev', vHost);
    ip('-n', nsClient, 'addr', 'add', `${clientIp}/24`, 'dev', vClient);
    for (const [ns, dev] of [[nsHost, vHost], [nsClient, vClient]] as const) {
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      ip('-n', ns, 'link', 'set', dev, 'up');
    }
    const node = (ns: string, script: string, args: string[]) => {
      const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '--import', 'tsx', join(ROOT, 'scripts/blackhole', script), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      child.stderr!.on('data', (d: Buffer) => log(`[${script} stderr] ${d.toString().trimEnd()}`));
      return child;
    };
    const host = node(nsHost, 'host.ts', ['--port', '7700', '--bind', hostIp, '--out', out, '--token', token]);
    await lineFrom(host, (l) => l.startsWith('ready'), 30_000, 'host ready');
    const client = node(nsClient, 'client.ts', ['--url', `ws://${hostIp}:7700`, '--token', token, '--tokens', String(opts.tokens), '--interval', String(opts.intervalMs), ...(opts.unsequenced ? ['--unsequenced'] : [])]);
    client.stdout!.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n').filter(Boolean)) {
        events.push(line);
        log(`[client] ${line}`);
      }
    });
    const finished = lineFrom(client, (l) => l.startsWith('done'), opts.timeoutMs, 'client done');
    const noticed = opts.holeUntilLivenessFires ? lineFrom(client, (l) => l.startsWith('event disconnected'), opts.timeoutMs, 'the client noticing the black hole') : undefined;
    noticed?.catch(() => undefined); // awaited below; a client that ends first fails there
    // The hole opens holeStartMs after the client is connected: on a loaded machine its start alone can take longer
    // than that, and a hole that opens before it connects is never a dead link to notice, only a failed connect.
    await lineFrom(client, (l) => l.startsWith('event connected'), opts.timeoutMs, 'the client connecting');
    await delay(opts.holeStartMs);
    log(`black hole: ${vHost} down for ${opts.holeMs} ms`);
    ip('-n', nsHost, 'link', 'set', vHost, 'down');
    await delay(opts.holeMs);
    if (noticed) await noticed;
    ip('-n', nsHost, 'link', 'set', vHost, 'up');
    log('link back up');
    await finished;
    // The PTY's read loop stamps asynchronously: give it until the last token shows (bounded).
    const last = `tok-${String(opts.tokens).padStart(4, '0')}`;
    for (let i = 0; i < 100 && !(existsSync(out) && readFileSync(out, 'utf8').includes(last)); i++) await delay(100);
    return { ...count(existsSync(out) ? readFileSync(out, 'utf8') : '', opts.tokens), events };
  } finally {
    for (const c of children) c.kill('SIGTERM');
    for (const ns of [nsHost, nsClient]) {
      try {
        ip('netns', 'del', ns);
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lost, duplicated, reordered and mangled lines of the stamped file. */
export function count(stamped: string, typed: number): Omit<BlackholeResult, 'events'> {
  const seen = new Map<number, number>();
  let mangled = 0;
  let reordered = 0;
  let highest = 0;
  let received = 0;
  for (const line of stamped.split('\n').filter(Boolean)) {
    const match = /^\d+\.\d+ tok-(\d{4})$/.exec(line);
    if (!match) {
      mangled++;
      continue;
    }
    received++;
    const n = Number(match[1]);
    seen.set(n, (seen.get(n) ?? 0) + 1);
    if (n < highest) reordered++;
    highest = Math.max(highest, n);
  }
  let lost = 0;
  let duplicated = 0;
  for (let n = 1; n <= typed; n++) {
    const times = seen.get(n) ?? 0;
    if (times === 0) lost++;
    if (times > 1) duplicated += times - 1;
  }
  return { typed, received, lost, duplicated, reordered, mangled };
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function lineFrom(child: ChildProcess, match: (line: string) => boolean, timeoutMs: number, what: string): Promise<void> {
  return new Promise((resolveLine, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().split('\n').some(match)) {
        clearTimeout(timer);
        resolveLine();
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what}: process exited with ${code}`));
    });
  });
}
