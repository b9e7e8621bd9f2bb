import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BUSY_WITHOUT_ANSWER, PEER_ENTRY, PeerProcess } from '../../compat/journey/peer-process.js';
import { isAlive } from '../helpers/process-alive.js';
import { waitFor } from '../helpers/wait-for.js';
import { ProgressDeadline, sampleProcess } from '../../compat/journey/progress-deadline.js';
import { PEER_PROTOCOL_VERSION } from '../../compat/peer/protocol-version.js';

/**
 * A peer's start is judged by its own progress, not the clock: a loaded CI
 * runner makes a start slow, and a slow start must never read as a peer that
 * could not start (exit 2). Real child processes: fake peers that speak the
 * real control channel.
 */
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const CONTROL = pathToFileURL(resolve('dist/compat/peer/control-channel.js')).href;

/** A build directory whose peer entry runs `body`, with `hello()` in scope to say hello on fd 3; each request (`m`) runs `onRequest`, by default exiting (the harness's shutdown). */
function fakeBuild(body: string, onRequest = 'process.exit(0);'): string {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-fake-peer-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist', 'compat', 'peer'), { recursive: true });
  writeFileSync(
    join(dir, PEER_ENTRY),
    `import { Socket } from 'node:net';
import { readControl, sendControl } from ${JSON.stringify(CONTROL)};
const channel = new Socket({ fd: 3, readable: true, writable: true });
const answer = (m, result) => sendControl(channel, { id: m.id, ok: true, result });
readControl(channel, (m) => { ${onRequest} });
const hello = () => sendControl(channel, { hello: { peerProtocol: ${PEER_PROTOCOL_VERSION}, role: 'codec', version: '0.0.0-fake', advertised: {} } });
${body}
`,
  );
  return dir;
}

describe('ProgressDeadline', () => {
  const limits = { cpuBudgetMs: 1_000, idleMs: 500 };

  it('never expires a process that is runnable, however long it waits for a core', () => {
    const d = new ProgressDeadline(limits, 0);
    for (let t = 0; t <= 60_000; t += 250) expect(d.check(t, { cpuMs: 10, state: 'R' }).expired).toBe(false);
  });

  it('expires a process asleep without using CPU for idleMs', () => {
    const d = new ProgressDeadline(limits, 0);
    expect(d.check(100, { cpuMs: 10, state: 'S' }).expired).toBe(false);
    expect(d.check(400, { cpuMs: 10, state: 'S' }).expired).toBe(false);
    const verdict = d.check(700, { cpuMs: 10, state: 'S' });
    expect(verdict).toMatchObject({ expired: true, why: expect.stringContaining('idle') });
  });

  it('counts CPU progress as progress even when the sample finds it asleep', () => {
    const d = new ProgressDeadline(limits, 0);
    for (let t = 0; t <= 5_000; t += 250) expect(d.check(t, { cpuMs: t / 10, state: 'S' }).expired).toBe(false);
  });

  it('expires a process that burnt its CPU budget', () => {
    const d = new ProgressDeadline(limits, 0);
    expect(d.check(100, { cpuMs: 1_200, state: 'R' })).toMatchObject({ expired: true, why: expect.stringContaining('CPU') });
  });

  it('falls back to wall time where there is no /proc', () => {
    const d = new ProgressDeadline(limits, 0);
    expect(d.check(400, undefined).expired).toBe(false);
    expect(d.check(600, undefined).expired).toBe(true);
  });

  it('reads a real process: this one has used CPU and is running', () => {
    const sample = sampleProcess(process.pid);
    if (sample === undefined) return; // no /proc here: the fallback above covers it
    expect(sample.cpuMs).toBeGreaterThan(0);
    expect(sample.state).toBe('R');
  });
});

describe('PeerProcess.start under its progress deadline', () => {
  it('waits for a peer that works for longer than the idle limit before saying hello', async () => {
    // 1.2 s of work against a 400 ms idle limit: a wall-clock deadline would have given up.
    const dir = fakeBuild(`const until = Date.now() + 1200; while (Date.now() < until) {} hello(); setInterval(() => {}, 1000);`);
    const peer = await PeerProcess.start({ buildDir: dir, role: 'codec', label: 'slow fake', helloDeadline: { cpuBudgetMs: 20_000, idleMs: 400 } });
    expect(peer.hello.version).toBe('0.0.0-fake');
    await peer.stop();
  });

  it('gives up on a peer that sleeps without saying hello, and says why', async () => {
    const dir = fakeBuild(`setInterval(() => {}, 1000);`);
    await expect(PeerProcess.start({ buildDir: dir, role: 'codec', label: 'idle fake', helloDeadline: { cpuBudgetMs: 20_000, idleMs: 400 } })).rejects.toThrow(/idle fake: no hello from peer: it sat idle/);
  });

  it('gives up on a peer that spins past its CPU budget', async () => {
    const dir = fakeBuild(`for (;;) {}`);
    await expect(PeerProcess.start({ buildDir: dir, role: 'codec', label: 'spinning fake', helloDeadline: { cpuBudgetMs: 300, idleMs: 60_000 } })).rejects.toThrow(/spinning fake: no hello from peer: it used \d+ ms of CPU/);
  });
});

/**
 * A peer whose event loop is stuck in a loop never answers again: it is
 * given up once its main thread has burnt its limit of CPU with calls
 * waiting (not after each call's deadline, while it burns a core), and a
 * peer that works hard but answers between tasks is kept, however long.
 */
describe('a peer busy without answering', () => {
  // `spin` never returns; `work` holds the thread for m.args.ms of CPU, then answers; anything else is answered at once.
  const SPIN_OR_WORK = `if (m.op === 'shutdown') process.exit(0);
  if (m.op === 'spin') for (;;) {}
  if (m.op === 'work') { const start = process.cpuUsage(); for (;;) { const used = process.cpuUsage(start); if ((used.user + used.system) / 1000 >= m.args.ms) break; } }
  answer(m, m.op);`;
  // A fake left spinning by a failing test would burn a core for the rest of the run.
  const started: PeerProcess[] = [];
  afterEach(() => started.splice(0).forEach((peer) => !peer.hasExited && peer.pid !== undefined && isAlive(peer.pid) && process.kill(peer.pid, 'SIGKILL')));
  const start = async (floorCpuMs: number, shareOfDeadline = 0) => {
    const peer = await PeerProcess.start({ buildDir: fakeBuild('hello();', SPIN_OR_WORK), role: 'codec', label: 'looping fake', busyWithoutAnswer: { floorCpuMs, shareOfDeadline } });
    started.push(peer);
    return peer;
  };

  it('defaults to a limit far above what any op holds the thread for', () => {
    expect(BUSY_WITHOUT_ANSWER.floorCpuMs).toBeGreaterThanOrEqual(5_000);
    expect(BUSY_WITHOUT_ANSWER.shareOfDeadline * 15_000).toBeLessThanOrEqual(BUSY_WITHOUT_ANSWER.floorCpuMs); // an op at the default deadline gets the floor
  });

  it('is given up once its main thread used its limit without an answer: the waiting call is refused, the process killed, later calls refused at once', async () => {
    const peer = await start(300);
    const pid = peer.pid!;
    expect(await peer.call('ping')).toBe('ping');
    await expect(peer.call('spin')).rejects.toThrow(/looping fake: its event loop answered nothing while its main thread used \d+ ms of CPU \(limit 300 ms\): it is stuck in a loop, or far slower than any op needs, and was stopped/);
    await waitFor(() => !isAlive(pid), { what: 'the looping peer is killed' });
    await expect(peer.call('ping')).rejects.toThrow(/looping fake: cannot ping: its event loop answered nothing/);
    await peer.stop();
  });

  it('may spend a share of a long deadline busy: an op given 20 s may hold the thread for 1 s of CPU, past the 300 ms floor', async () => {
    const peer = await start(300, 1 / 4);
    expect(await peer.call('work', { ms: 1_000 }, 20_000)).toBe('work');
    await peer.stop();
  });

  it('is kept while it answers between tasks, however much CPU they add up to', async () => {
    const peer = await start(400);
    for (let i = 0; i < 8; i++) expect(await peer.call('work', { ms: 150 }, 120_000)).toBe('work');
    expect(await peer.call('ping')).toBe('ping');
    await peer.stop();
  });
});
