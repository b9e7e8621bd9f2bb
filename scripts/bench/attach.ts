/**
 * Attach section: `cat` of a 20 MiB log through real `termwire serve` and
 * `termwire attach` processes, attach's terminal a real PTY drained by this
 * process, timed from the keystroke until the end marker is read back;
 * against the same `cat` in a local PTY drained the same way. Rounds alternate.
 *
 * Diagnostic rows give each process's CPU per MiB, and how much of the cat
 * reached attach's terminal (the host may replace output a slow reader could
 * not take with a snapshot, which would make a fast figure a hollow one).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { privateTempRoot } from '../lib/private-temp.js';
import { join } from 'node:path';
import { percentile } from '../lib/percentile.js';
import { interleave, measure, type Sample, type Trial } from './lib/interleave.js';
import { mainThreadCpuSeconds, processCpuSeconds } from './lib/process-cpu.js';
import { PtySession } from './lib/pty-session.js';
import type { Row } from './lib/row.js';
import { ServeAttach } from './lib/serve-attach.js';
import { logLines } from './lib/terminal-text.js';

export const name = 'attach';

const TARGET_VS_LOCAL_PTY = 0.5;
const MiB = 1024 * 1024;
const FILE_MIB = 20;
const ROUNDS = Number(process.env['TERMWIRE_BENCH_ROUNDS'] ?? 5);

/** Log lines (ASCII, so chars = bytes) adding up to at least `bytes`. */
function logFile(bytes: number): string {
  const block = logLines(1000);
  return block.repeat(Math.ceil(bytes / block.length));
}

const BARE_RELAY = join(import.meta.dirname, 'lib', 'bare-relay.mjs');

function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

let markers = 0;
const ECHOES = 100;

/** Times `count` keystroke echoes in each session, alternating: a marker typed (no Enter), then erased with Ctrl-U. */
async function echoTrials(sessions: readonly PtySession[], count: number): Promise<number[][]> {
  const times = sessions.map(() => [] as number[]);
  for (let i = 0; i < count; i++) {
    for (const [s, session] of sessions.entries()) {
      times[s]!.push(await session.keysUntil(`k${i}x`, `k${i}x`));
      await session.keysUntil('\x15', '\x1b[K'); // readline erases the line: the prompt alone again
    }
  }
  return times.map((t) => t.sort((a, b) => a - b));
}

const INTERRUPTS = 30;
/** How much of the flood is read before Ctrl-C: every buffer on the way (PTY, host queue, link, attach) is full by then. */
const FLOOD_BEFORE_INTERRUPT_CHARS = 8 * MiB;
/** The budget for Ctrl-C in a flood to bring the prompt back. */
const INTERRUPT_CEILING_MS = 100;

/**
 * Times Ctrl-C in a `yes` flood, `count` times in each session, alternating:
 * the flood runs until 8 MiB of it were read back, then Ctrl-C, timed until the
 * prompt (`$ `, which the flood's lines never hold) is read back.
 */
async function interruptTrials(sessions: readonly PtySession[], count: number): Promise<number[][]> {
  const times = sessions.map(() => [] as number[]);
  for (let i = 0; i < count; i++) {
    for (const [s, session] of sessions.entries()) {
      await session.typeUntil(`yes flood-$((${i}+1000))`, `flood-${i + 1000}\r\nflood-${i + 1000}`);
      await session.readMore(FLOOD_BEFORE_INTERRUPT_CHARS);
      times[s]!.push(await session.keysUntil('\x03', '$ '));
    }
  }
  return times.map((t) => t.sort((a, b) => a - b));
}

/** Runs the cat in `session`; the marker's digits are computed by the shell, so the typed line never matches it. */
async function catTrial(session: PtySession, file: string, processes: Readonly<Record<string, number>>): Promise<Sample> {
  const n = ++markers;
  const cpuNow = () => Object.fromEntries(Object.entries(processes).flatMap(([key, pid]) => [[`${key}Cpu`, processCpuSeconds(pid) ?? 0], [`${key}MainCpu`, mainThreadCpuSeconds(pid) ?? 0]]));
  const cpuBefore = cpuNow();
  const drainBefore = process.cpuUsage();
  const readBefore = session.bytesRead;
  const ms = await session.typeUntil(`cat ${file}; echo cat-done-$((${n}*1000+7))`, `cat-done-${n * 1000 + 7}`);
  const drain = process.cpuUsage(drainBefore);
  const cpu = Object.fromEntries(Object.entries(cpuNow()).map(([key, seconds]) => [key, seconds - cpuBefore[key]!]));
  return { seconds: ms / 1000, drainCpu: (drain.user + drain.system) / 1e6, read: session.bytesRead - readBefore, ...cpu };
}

export async function run(): Promise<Row[]> {
  const dir = mkdtempSync(join(privateTempRoot(), 'termwire-bench-attach-'));
  const file = join(dir, 'build.log');
  const text = logFile(FILE_MIB * MiB);
  writeFileSync(file, text);
  const mib = text.length / MiB;
  const local = PtySession.spawn('local bash', 'bash', ['--noprofile', '--norc'], { PS1: '$ ' });
  const bareRelay = PtySession.spawn('bare Node relay', process.execPath, [BARE_RELAY], { PS1: '$ ' });
  const scriptRelay = commandExists('script') ? PtySession.spawn('script(1) relay', 'script', ['--quiet', '--command', 'bash --noprofile --norc', '/dev/null'], { PS1: '$ ' }) : undefined;
  const remote = await ServeAttach.start(join(dir, 'token'), 'bench');
  try {
    for (const session of [local, bareRelay, scriptRelay, remote.attach]) await session?.typeUntil('echo ready-$((40+2))', 'ready-42');
    const floors: Trial[] = [() => catTrial(bareRelay, file, {}), ...(scriptRelay ? [() => catTrial(scriptRelay, file, {})] : [])];
    const [localPty, termwire, relayed, scripted] = await interleave(
      [() => catTrial(local, file, {}), () => catTrial(remote.attach, file, { serve: remote.servePid, attach: remote.attach.pid }), ...floors],
      { rounds: ROUNDS, warmupRounds: 1 },
    );
    const [localEcho, attachEcho] = await echoTrials([local, remote.attach], ECHOES);
    const [localInterrupt, attachInterrupt] = await interruptTrials([local, remote.attach], INTERRUPTS);
    const mbps = (sample: Sample) => (mib * MiB) / measure(sample, 'seconds') / 1e6;
    const base = mbps(localPty!);
    const msPerMiB = (sample: Sample, key: string) => ({ value: (measure(sample, key) * 1000) / mib, unit: ' ms/MiB' });
    return [
      { section: name, name: `cat ${FILE_MIB} MiB via serve + attach, read on a PTY`, value: mbps(termwire!), unit: ' MB/s', ratio: mbps(termwire!) / base, baseline: 'same cat, local PTY', target: TARGET_VS_LOCAL_PTY },
      { section: name, name: `cat ${FILE_MIB} MiB in a local PTY (node-pty)`, value: base, unit: ' MB/s' },
      { section: name, name: `  cat ${FILE_MIB} MiB via a bare Node relay, two PTYs (floor, diagnostic)`, value: mbps(relayed!), unit: ' MB/s', ratio: mbps(relayed!) / base, baseline: 'same cat, local PTY' },
      ...(scripted ? [{ section: name, name: `  cat ${FILE_MIB} MiB via script(1), a relay in C (floor, diagnostic)`, value: mbps(scripted), unit: ' MB/s', ratio: mbps(scripted) / base, baseline: 'same cat, local PTY' }] : []),
      { section: name, name: `  serve + attach against the bare Node relay (diagnostic)`, value: mbps(termwire!), unit: ' MB/s', ratio: mbps(termwire!) / mbps(relayed!), baseline: 'bare Node relay' },
      { section: name, name: '  serve process CPU (diagnostic)', ...msPerMiB(termwire!, 'serveCpu') },
      { section: name, name: '    of which its main thread: PTY reads, framing, socket writes (diagnostic)', ...msPerMiB(termwire!, 'serveMainCpu') },
      { section: name, name: '  attach process CPU (diagnostic)', ...msPerMiB(termwire!, 'attachCpu') },
      { section: name, name: '    of which its main thread (diagnostic)', ...msPerMiB(termwire!, 'attachMainCpu') },
      { section: name, name: '  draining attach PTY, this process CPU (diagnostic)', ...msPerMiB(termwire!, 'drainCpu') },
      { section: name, name: '  draining local PTY, this process CPU (diagnostic)', ...msPerMiB(localPty!, 'drainCpu') },
      { section: name, name: `key echo via serve + attach, p50 of ${ECHOES}`, value: percentile(attachEcho!, 50), unit: ' ms', ratio: percentile(attachEcho!, 50) / percentile(localEcho!, 50), baseline: 'local PTY p50' },
      { section: name, name: `key echo via serve + attach, p99 of ${ECHOES}`, value: percentile(attachEcho!, 99), unit: ' ms', ratio: percentile(attachEcho!, 99) / percentile(localEcho!, 99), baseline: 'local PTY p99' },
      { section: name, name: `Ctrl-C in a yes flood via serve + attach, until the prompt, p50 of ${INTERRUPTS}`, value: percentile(attachInterrupt!, 50), unit: ' ms', ratio: percentile(attachInterrupt!, 50) / percentile(localInterrupt!, 50), baseline: 'local PTY p50', ceiling: INTERRUPT_CEILING_MS },
      { section: name, name: `Ctrl-C in a yes flood via serve + attach, until the prompt, worst of ${INTERRUPTS}`, value: attachInterrupt!.at(-1)!, unit: ' ms', ratio: attachInterrupt!.at(-1)! / localInterrupt!.at(-1)!, baseline: 'local PTY worst', ceiling: INTERRUPT_CEILING_MS },
      { section: name, name: '  Ctrl-C in a yes flood in a local PTY, p50 / worst (diagnostic)', value: percentile(localInterrupt!, 50), unit: ` ms / ${localInterrupt!.at(-1)!.toFixed(1)} ms` },
      { section: name, name: '  key echo in a local PTY, p50 / p99 (diagnostic)', value: percentile(localEcho!, 50), unit: ` ms / ${percentile(localEcho!, 99).toFixed(2)} ms` },
      { section: name, name: '  bytes read from attach PTY (diagnostic)', value: measure(termwire!, 'read') / MiB, unit: ' MiB', ratio: measure(termwire!, 'read') / measure(localPty!, 'read'), baseline: 'bytes read from local PTY', note: 'below 1: output replaced by snapshots' },
    ];
  } finally {
    await local.close();
    await bareRelay.close();
    await scriptRelay?.close();
    await remote.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
