/**
 * `npm run stress-gate -- [--runs N] [--busy K] [--quiet] [-- <compat options>]`
 *
 * Runs the gate N times (default 10) against the newest release while K busy
 * processes (default 2 per core) keep every core loaded, as a shared CI runner
 * is, and prints each verdict with the load average. A gate whose verdict
 * depends on load is defective: the run exits 1 unless every verdict equals
 * the first quiet-or-loaded expectation (`--expect-exit`, default 0).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const HELP = `Usage: npm run stress-gate -- [--runs N] [--busy K] [--quiet] [--expect-exit E] [-- <termwire compat options>]

Runs termwire compat N times (default 10) while K busy processes (default 2 per
core) keep every core loaded, and prints each run's exit code, findings and the
1-minute load average. --quiet runs without the busy processes. Exits 0 when
every run exited E (default 0), 1 otherwise.`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '10' },
    busy: { type: 'string', default: String(2 * availableParallelism()) },
    quiet: { type: 'boolean', default: false },
    'expect-exit': { type: 'string', default: '0' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}
const runs = Number(values.runs);
const busyCount = values.quiet ? 0 : Number(values.busy);
const expectExit = Number(values['expect-exit']);
if (!(Number.isInteger(runs) && runs > 0) || !(Number.isInteger(busyCount) && busyCount >= 0)) {
  process.stderr.write(`stress-gate: --runs must be a positive whole number and --busy a whole number (${HELP.split('\n')[0]})\n`);
  process.exit(2);
}

/** A process that spins forever at full CPU: the load a busy CI runner puts beside the gate. */
const spinner = (): ChildProcess => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' });
const busy = Array.from({ length: busyCount }, spinner);
const stopBusy = () => busy.forEach((p) => p.kill('SIGKILL'));
process.on('exit', stopBusy);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

/** `disturbances`: the report's notes of walks a busy machine disturbed (a client that gave up a link the proxy kept up), each walked again. */
interface RunResult { readonly exit: number | null; readonly findings: string[]; readonly unconfirmed: string[]; readonly disturbances: number; readonly seconds: number; readonly load: number; readonly error?: string }

function runGateOnce(): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'termwire-stress-'));
  const output = join(dir, 'report.json');
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/termwire.js', 'compat', '--format', 'json', '--output', output, ...positionals], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-4000)));
    child.on('exit', (exit) => {
      let report: { findings?: Array<{ ruleId: string; direction: string; step?: string }>; unconfirmed?: Array<{ finding: { ruleId: string; direction: string } }>; notes?: unknown[]; error?: { code?: string; message: string } } = {};
      try {
        report = JSON.parse(readFileSync(output, 'utf8')) as typeof report;
      } catch {
        report = { error: { message: stderr.trim().split('\n').slice(-3).join(' | ') } };
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({
        exit,
        findings: (report.findings ?? []).map((f) => `${f.ruleId} (${f.direction}${f.step ? `, ${f.step}` : ''})`),
        unconfirmed: (report.unconfirmed ?? []).map((u) => `${u.finding.ruleId} (${u.finding.direction})`),
        disturbances: (report.notes ?? []).filter((n) => JSON.stringify(n).includes("no walk's verdict stood alone")).length,
        seconds: (Date.now() - started) / 1000,
        load: loadavg()[0]!,
        ...(report.error ? { error: `${report.error.code ?? ''} ${report.error.message}`.trim() } : {}),
      });
    });
  });
}

process.stdout.write(`stress-gate: ${runs} run(s) of termwire compat ${positionals.join(' ')} with ${busyCount} busy process(es) on ${availableParallelism()} core(s)\n`);
const results: RunResult[] = [];
for (let i = 1; i <= runs; i++) {
  const r = await runGateOnce();
  results.push(r);
  const detail = [r.findings.length ? `findings: ${r.findings.join(', ')}` : '', r.unconfirmed.length ? `not reproduced: ${r.unconfirmed.join(', ')}` : '', r.disturbances ? `${r.disturbances} disturbed walk(s), walked again` : '', r.error ?? ''].filter(Boolean).join('; ');
  process.stdout.write(`run ${i}/${runs}: exit ${r.exit} in ${r.seconds.toFixed(1)} s, load ${r.load.toFixed(1)}${detail ? ` — ${detail}` : ''}\n`);
}
const matching = results.filter((r) => r.exit === expectExit).length;
const loads = results.map((r) => r.load);
process.stdout.write(`stress-gate: ${matching} of ${runs} run(s) exited ${expectExit}; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} with ${busyCount} busy process(es)\n`);
// The spinners are child processes that keep this one alive: stop them, then exit with the verdict.
stopBusy();
process.exit(matching === runs ? 0 : 1);
