import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { trackProcessGroup } from '../cleanup.js';
import type { GateReport } from '../report/model.js';
import { waitedChildrenCpuMs } from '../journey/progress-deadline.js';

/** One gate run over the scratch checkout. */
export interface GateVerdict {
  /** The gate's exit code; undefined when it was stopped (timeout, signal). */
  readonly exitCode: number | undefined;
  readonly report?: GateReport;
  /** CPU of the gate and every process it waited for (its builds, its peers): /proc's children time, else the report's own count. */
  readonly cpuSeconds?: number;
  readonly timedOut: boolean;
  /** The last lines of its progress, for an error's reason. */
  readonly logTail: string;
}

export interface GateRunOptions {
  /** The project: its bin/termwire.js is the gate that judges, its cache holds the built release. */
  readonly root: string;
  readonly against: string;
  readonly timeoutMs: number;
  /** Where the gate's JSON report and log are written (one pair per mutant, kept for triage). */
  readonly reportFile: string;
  readonly logFile: string;
}

/** Children's user+system CPU so far, in seconds (Linux /proc); undefined elsewhere. */
function childCpuSeconds(): number | undefined {
  const ms = waitedChildrenCpuMs(process.pid);
  return ms === undefined ? undefined : ms / 1000;
}

/**
 * `termwire compat` from the project's own build, judging `scratchDir`:
 * every default pass, the differential decoder check, the capability-off
 * journeys; only the report format is chosen. The baseline cache is the
 * project's, so the release is built once; the working tree is rebuilt for
 * every mutant because its tree id (the build stamp) changes with it.
 */
export async function runGate(scratchDir: string, opts: GateRunOptions): Promise<GateVerdict> {
  rmSync(opts.reportFile, { force: true });
  const acknowledgements = join(opts.root, 'compat', 'acknowledged-breaks.json');
  const args = [join(opts.root, 'bin', 'termwire.js'), 'compat', '--against', opts.against, '--format', 'json', '--output', opts.reportFile, '--cache-dir', join(opts.root, '.termwire', 'compat')];
  if (existsSync(acknowledgements)) args.push('--acknowledgements', acknowledgements);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  // Nothing here selects a mutant at run time: the mutant is in the files.
  delete env.__STRYKER_ACTIVE_MUTANT__;
  const before = childCpuSeconds();
  const child = execa(process.execPath, args, { cwd: scratchDir, env, extendEnv: false, reject: false, all: true, timeout: opts.timeoutMs, detached: true, killSignal: 'SIGTERM' });
  const untrack = trackProcessGroup(child.pid);
  const result = await child.finally(untrack);
  const after = childCpuSeconds();
  const log = String(result.all ?? '');
  writeFileSync(opts.logFile, log);
  let report: GateReport | undefined;
  try {
    report = JSON.parse(readFileSync(opts.reportFile, 'utf8')) as GateReport;
  } catch {
    report = undefined;
  }
  const cpuSeconds = before !== undefined && after !== undefined ? after - before : report?.cost?.cpuSeconds;
  return {
    exitCode: result.timedOut || result.isTerminated ? undefined : result.exitCode,
    ...(report ? { report } : {}),
    ...(cpuSeconds !== undefined ? { cpuSeconds } : {}),
    timedOut: result.timedOut === true,
    logTail: log.trimEnd().split('\n').slice(-5).join('\n'),
  };
}
