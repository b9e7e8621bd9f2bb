import { resolve } from 'node:path';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type AgainstSpec, parseAgainst } from './baseline/validate-ref.js';
import { repoRoot } from './baseline/git.js';
import { installSignalCleanup } from './cleanup.js';
import { CompatError, isCompatError } from './errors.js';
import { createProgress, useColor } from './progress.js';
import { renderStepSummary } from './report/github.js';
import { EXIT_CODES, type GateReport } from './report/model.js';
import { REPORT_FORMATS, type ReportFormat, renderReport } from './report/render.js';
import { runGate } from './run-gate.js';
import { DEFAULT_DECODER_CHECK } from './codec-diff/options.js';
import { readReplayFile } from './explore/replay-file.js';
import type { ExploreOptions } from './explore/run-explore.js';
import { scheduleOf } from './explore/schedule.js';
import { CAPABILITIES_OFF_MODES, type CapabilitiesOffMode } from './explore/capabilities-off.js';
import { JOURNEY_PASSES, type JourneyPass } from './journey/disturbances.js';
import { ensureWritableFile } from './writable.js';
import { mergeShardReports } from './report/merge.js';
import { parseShard, type Shard } from './shard.js';

const HELP = `Usage: termwire compat [options]
       termwire compat merge [--format f] [--output file] <shard report.json>...

Checks the working tree against the last release: builds both, pairs the old
and new host and client in both skew directions over real sockets, and reports
every break of the compatibility rules (docs/compatibility.md).

Options:
  --against <spec>        latest (default: newest vX.Y.Z tag or "release: vX.Y.Z" commit),
                          a git ref, or last:N (a matrix over the N newest releases)
  --include-prerelease    let vX.Y.Z-pre releases count as releases
  --format <f>            text (default) | json | junit | github
  --output <file>         write the report to <file> instead of stdout
  -v, --verbose           the text report prints every acknowledged finding in full (default: one
                          line per acknowledgement, with how many findings it covered)
  --cache-dir <dir>       where built baselines are cached (default .termwire/compat)
  --static-only           compare the two builds' manifests only; skip the journeys
  --acknowledgements <file>
                          the acknowledged breaks to apply (default: compat/acknowledged-breaks.json
                          in the checkout being judged); CI passes the base branch's copy, so a pull
                          request cannot acknowledge its own break (docs/compatibility.md)
  --explore <n>           after the scripted journey, run n seeded random journeys per pairing
                          (steps, drops, lost input, reconnect storms, bursts, pastes, resizes)
  --seed <s>              the first explore seed (default: random, printed); journey i uses s+i,
                          so a failing seed replays alone with --explore 1 --seed <it>
  --replay <file>         walk the explore schedule a failing run shrank and wrote (its path is in the
                          report), against the baseline it failed against unless --against says otherwise
  --capabilities-off <m>  each (default): one journey per optional capability both builds negotiate,
                          withheld by the link (clients advertise it, no host hears of it);
                          none skips those journeys
  --passes <list>         the journey passes to walk, comma-separated: script (always), pty, restart,
                          stream, lifetime (default: all of them); a pass left out is named in the report,
                          so a maintainer can walk the one pass a change is about
  --decoder-frames <n>    mutated frames both builds' decoders read, per baseline (default 100000;
                          0 skips the differential codec check)
  --decoder-seed <s>      the seed those frames are drawn from (default 1, so a verdict never
                          depends on a draw; a sweep moves it)
  --shard <i/n>           walk only shard i of n: each baseline's scripted comparison and each
                          explore seed is one unit, unit u going to shard (u mod n) + 1; write each
                          shard's report with --format json, then join them with compat merge
  -h, --help              show this help

merge joins the JSON reports of all n shards of one run into one verdict, one
coverage line per direction and one report in any --format (junit for CI); it
refuses a set that is not exactly shards 1/n to n/n of the same run.

Progress goes to stderr; the report to stdout (or --output). NO_COLOR is honoured.
Exit codes: 0 compatible, 1 findings, 2 could not compare (never 0 in that case).`;

interface CliOptions { against: AgainstSpec; includePrerelease: boolean; format: ReportFormat; output?: string; verbose?: boolean; cacheDir?: string; staticOnly: boolean; explore?: ExploreOptions; acknowledgements?: string; decoderCheck: { frames: number; seed: number }; capabilitiesOff: CapabilitiesOffMode; replay: boolean; shard?: Shard; passes?: ReadonlySet<JourneyPass> }

/** node's parseArgs errors, shortened to what the user typed wrong. */
function parseArgsMessage(e: Error & { code?: string }): string {
  const option = /'([^']+)'/.exec(e.message)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && option) return `unexpected argument ${option}: compat takes options only`;
  return e.message;
}

function parse(args: string[]): CliOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        against: { type: 'string' },
        'include-prerelease': { type: 'boolean', default: false },
        format: { type: 'string', default: 'text' },
        output: { type: 'string' },
        verbose: { type: 'boolean', short: 'v', default: false },
        'cache-dir': { type: 'string' },
        'static-only': { type: 'boolean', default: false },
        acknowledgements: { type: 'string' },
        explore: { type: 'string' },
        seed: { type: 'string' },
        replay: { type: 'string' },
        'decoder-frames': { type: 'string' },
        'capabilities-off': { type: 'string', default: 'each' },
        'decoder-seed': { type: 'string' },
        shard: { type: 'string' },
        passes: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    throw new CompatError('BAD_OPTION', parseArgsMessage(e as Error & { code?: string }));
  }
  if (values.help) return 'help';
  const format = reportFormat(values.format);
  if (values.replay !== undefined && (values.explore !== undefined || values['static-only'])) throw new CompatError('BAD_OPTION', `--replay walks the schedule in its file: it takes no ${values.explore !== undefined ? '--explore' : '--static-only'}`);
  if (values.passes !== undefined && (values.replay !== undefined || values['static-only'])) throw new CompatError('BAD_OPTION', `--passes chooses the script's passes: ${values['static-only'] ? '--static-only walks no journey' : '--replay walks only the schedule in its file'}`);
  if (values.replay !== undefined && values.shard !== undefined) throw new CompatError('BAD_OPTION', '--replay walks one schedule: it cannot be split with --shard');
  const replay = values.replay !== undefined ? readReplayFile(resolve(values.replay)) : undefined;
  return {
    against: parseAgainst(values.against ?? replay?.builds.old.commit ?? 'latest'),
    includePrerelease: values['include-prerelease'],
    format,
    ...(values.output !== undefined ? { output: values.output } : {}),
    verbose: values.verbose,
    ...(values['cache-dir'] !== undefined ? { cacheDir: resolve(values['cache-dir']) } : {}),
    staticOnly: values['static-only'],
    ...(values.acknowledgements !== undefined ? { acknowledgements: resolve(values.acknowledgements) } : {}),
    replay: replay !== undefined,
    ...(values.shard !== undefined ? { shard: parseShard(values.shard) } : {}),
    capabilitiesOff: capabilitiesOffMode(values['capabilities-off']),
    ...passesOption(values.passes),
    decoderCheck: {
      frames: values['decoder-frames'] !== undefined ? wholeNumber('--decoder-frames', values['decoder-frames']) : DEFAULT_DECODER_CHECK.frames,
      seed: values['decoder-seed'] !== undefined ? wholeNumber('--decoder-seed', values['decoder-seed']) : DEFAULT_DECODER_CHECK.seed,
    },
    ...(values.explore !== undefined ? { explore: { count: wholeNumber('--explore', values.explore), seed: values.seed !== undefined ? wholeNumber('--seed', values.seed) : randomSeed() } } : {}),
    ...(replay ? { explore: { count: 1, seed: replay.seed, schedules: [replaySchedule(values.replay!, replay.seed, replay.moves)] } } : {}),
  };
}

/** `--passes script,restart`: known passes only, and the script among them (every other pass's stall windows and references come from it). */
function journeyPasses(value: string): ReadonlySet<JourneyPass> {
  const named = value.split(',').map((p) => p.trim());
  const unknown = named.filter((p) => !(JOURNEY_PASSES as readonly string[]).includes(p));
  if (unknown.length) throw new CompatError('BAD_OPTION', `--passes ${JSON.stringify(value)}: unknown pass ${unknown.map((p) => JSON.stringify(p)).join(', ')}; expected some of ${JOURNEY_PASSES.join(', ')}`);
  if (!named.includes('script')) throw new CompatError('BAD_OPTION', `--passes ${JSON.stringify(value)}: the script pass is always walked; name it (e.g. --passes script,${named[0]})`);
  return new Set(named as JourneyPass[]);
}

/** `passes` when `--passes` leaves a pass out; every pass named is no restriction, so the run, its report and its shards are the default one's. */
export function passesOption(value: string | undefined): { passes?: ReadonlySet<JourneyPass> } {
  if (value === undefined) return {};
  const passes = journeyPasses(value);
  return JOURNEY_PASSES.every((p) => passes.has(p)) ? {} : { passes };
}

function capabilitiesOffMode(value: string): CapabilitiesOffMode {
  if (!(CAPABILITIES_OFF_MODES as readonly string[]).includes(value)) throw new CompatError('BAD_OPTION', `--capabilities-off ${JSON.stringify(value)}: expected one of ${CAPABILITIES_OFF_MODES.join(', ')}`);
  return value as CapabilitiesOffMode;
}

/** `--format`, for the gate and for merge alike. */
function reportFormat(value: string): ReportFormat {
  if (!(REPORT_FORMATS as readonly string[]).includes(value)) throw new CompatError('BAD_OPTION', `--format ${JSON.stringify(value)}: expected one of ${REPORT_FORMATS.join(', ')}`);
  return value as ReportFormat;
}

function replaySchedule(file: string, seed: number, moves: readonly string[]) {
  try {
    return scheduleOf(seed, moves);
  } catch (e) {
    throw new CompatError('BAD_OPTION', `--replay ${file}: ${(e as Error).message}`);
  }
}

function wholeNumber(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n > 0xffffffff) throw new CompatError('BAD_OPTION', `${flag} ${JSON.stringify(text)}: expected a whole number from 0 to 4294967295`);
  return n;
}

/** A fresh seed for a run that names none; it is printed, so the run can be replayed. */
const randomSeed = () => Math.floor(Math.random() * 0x7fffffff);

function failedReport(e: unknown, staticOnly: boolean, shard?: Shard): GateReport {
  const cannot = isCompatError(e);
  const kind = cannot ? 'cannotCompare' : 'internalError';
  return {
    status: kind,
    exitCode: EXIT_CODES[kind],
    baselines: [],
    staticOnly,
    rulesRun: [],
    findings: [],
    acknowledged: [],
    staleAcknowledgements: [],
    error: { kind, ...(cannot ? { code: e.code } : {}), message: cannot ? e.message : String((e as Error)?.stack ?? e) },
    // A shard that could not compare still says which one it was, so the merge can say so too.
    ...(shard ? { shard: { ...shard, units: [] } } : {}),
  };
}

export async function run(args: string[]): Promise<number> {
  if (args[0] === 'merge') return runMerge(args.slice(1));
  let opts: CliOptions | 'help';
  try {
    opts = parse(args);
    // Checked before the run: a report that cannot be written must not cost minutes first.
    if (opts !== 'help' && opts.output !== undefined) ensureWritableFile(opts.output, 'OUTPUT_UNWRITABLE', '--output');
  } catch (e) {
    process.stderr.write(`termwire compat: ${(e as Error).message} (termwire compat --help lists the options)\n`);
    return 2;
  }
  if (opts === 'help') {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  installSignalCleanup((signal) => process.stderr.write(`\ntermwire compat: ${signal}: removing temporary build directories\n`));
  const progress = createProgress({ stream: process.stderr });
  let report: GateReport;
  try {
    const root = await repoRoot(process.cwd());
    report = await runGate({ root, against: opts.against, includePrerelease: opts.includePrerelease, staticOnly: opts.staticOnly, decoderCheck: opts.decoderCheck, capabilitiesOff: opts.capabilitiesOff, replay: opts.replay, ...(opts.passes ? { passes: opts.passes } : {}), ...(opts.explore ? { explore: opts.explore } : {}), ...(opts.shard ? { shard: opts.shard } : {}), ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}), ...(opts.acknowledgements ? { acknowledgements: opts.acknowledgements } : {}), progress });
  } catch (e) {
    report = failedReport(e, opts.staticOnly, opts.shard);
  }
  return deliver(report, opts);
}

/** Writes the report, and GitHub's step summary when the format asks for it; returns the exit code. */
function deliver(report: GateReport, opts: Pick<CliOptions, 'format' | 'output'>): number {
  const exitCode = writeReport(report, opts);
  if (opts.format === 'github' && process.env.GITHUB_STEP_SUMMARY) appendFileSync(process.env.GITHUB_STEP_SUMMARY, renderStepSummary(report));
  return exitCode;
}

/** `termwire compat merge`: the shards' JSON reports in, one report out. Its exit code is the merged verdict's. */
async function runMerge(args: string[]): Promise<number> {
  let opts: Pick<CliOptions, 'format' | 'output'>;
  let files: string[];
  try {
    const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { format: { type: 'string', default: 'text' }, output: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } });
    if (values.help) {
      process.stdout.write(HELP + '\n');
      return 0;
    }
    opts = { format: reportFormat(values.format), ...(values.output !== undefined ? { output: values.output } : {}) };
    if (opts.output !== undefined) ensureWritableFile(opts.output, 'OUTPUT_UNWRITABLE', '--output');
    files = positionals;
  } catch (e) {
    const message = isCompatError(e) ? e.message : parseArgsMessage(e as Error & { code?: string });
    process.stderr.write(`termwire compat merge: ${message} (termwire compat --help lists the options)\n`);
    return 2;
  }
  let report: GateReport;
  try {
    report = mergeShardReports(files.map(readShardReport));
  } catch (e) {
    report = failedReport(e, false);
  }
  return deliver(report, opts);
}

function readShardReport(file: string): GateReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CompatError('BAD_SHARDS', `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return JSON.parse(text) as GateReport;
  } catch {
    throw new CompatError('BAD_SHARDS', `${file} is not a JSON report: write each shard's with --format json`);
  }
}

/** Writes the report where asked. A write that fails never loses it: it goes to stdout, and the run exits 2. */
export function writeReport(report: GateReport, opts: Pick<CliOptions, 'format' | 'output' | 'verbose'>): number {
  if (opts.output === undefined) {
    process.stdout.write(renderReport(report, opts.format, useColor(process.stdout, process.env), opts.verbose));
    return report.exitCode;
  }
  const text = renderReport(report, opts.format, false, opts.verbose);
  try {
    writeFileSync(opts.output, text);
  } catch (e) {
    process.stderr.write(`termwire compat: could not write the report to ${opts.output} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); here it is on stdout\n`);
    process.stdout.write(text);
    return 2;
  }
  process.stderr.write(`termwire compat: ${report.status}; report written to ${opts.output}\n`);
  return report.exitCode;
}
