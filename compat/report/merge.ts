import { CompatError } from '../errors.js';
import type { Finding } from '../rules/finding.js';
import type { StaleAcknowledgement } from './acknowledged.js';
import { EXIT_CODES, type GateReport, type ShardReport } from './model.js';
import { orderByRootCause, type ReportedFinding } from './root-causes.js';

/**
 * A finding without what one report added to it: its id and its cause's id
 * there, and the JSON format's guidance (fix, acknowledgeWith), which the
 * merged report derives again. The same finding in two shards is then one.
 */
function bare(f: ReportedFinding): Finding {
  const { id: _id, causedBy: _causedBy, fix: _fix, acknowledgeWith: _ack, ...finding } = f as ReportedFinding & { fix?: unknown; acknowledgeWith?: unknown };
  return finding;
}

const key = (value: unknown) => JSON.stringify(value);

function unique<T>(items: readonly T[], by: (item: T) => string = key): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(by(item)) && seen.add(by(item)));
}

const seedOf = (schedule: string) => Number(/^seed (\d+):/.exec(schedule)?.[1] ?? Number.MAX_SAFE_INTEGER);

/** Every report is one shard of the same run, and together they are all n: else merging would pass a sweep it never walked. */
function checkShards(reports: readonly GateReport[]): ShardReport[] {
  if (reports.length === 0) throw new CompatError('BAD_SHARDS', 'compat merge needs the report files of a run split with --shard i/n (all n of them)');
  const shards = reports.map((r, i) => {
    if (!r.shard) throw new CompatError('BAD_SHARDS', `report ${i + 1} is not a shard's (it was not run with --shard i/n)`);
    return r.shard;
  });
  const count = shards[0]!.count;
  const indices = shards.map((s) => s.index).sort((a, b) => a - b);
  const expected = Array.from({ length: count }, (_, i) => i + 1);
  if (shards.some((s) => s.count !== count) || key(indices) !== key(expected)) {
    throw new CompatError('BAD_SHARDS', `the reports are shards ${shards.map((s) => `${s.index}/${s.count}`).join(', ')}; a merge needs each of 1/${count} to ${count}/${count} exactly once`);
  }
  const compared = reports.filter((r) => !r.error);
  const run = (r: GateReport) => key({ current: r.current, baselines: r.baselines, staticOnly: r.staticOnly, passes: r.passes, explore: r.explore && { seed: r.explore.seed, count: r.explore.count } });
  const other = compared.find((r) => run(r) !== run(compared[0]!));
  if (other) throw new CompatError('BAD_SHARDS', `shard ${other.shard!.index}/${count} judged another run (working tree, baselines, passes or explore sweep differ from shard ${compared[0]!.shard!.index}/${count}'s)`);
  return shards.sort((a, b) => a.index - b.index);
}

/** An acknowledgement is stale for the whole run only if no shard's findings matched it. */
function staleInEveryShard(reports: readonly GateReport[]): StaleAcknowledgement[] {
  const entry = ({ unmatched: _unmatched, ...ack }: StaleAcknowledgement) => key(ack);
  const [first, ...rest] = reports.map((r) => r.staleAcknowledgements);
  return unique(first ?? [], entry).filter((s) => rest.every((other) => other.some((o) => entry(o) === entry(s))));
}

/**
 * Joins the reports of the n shards of one run into the report the unsplit
 * run would give: one verdict, the findings of all shards (the same finding
 * once, ordered by root cause again across shards), coverage from each
 * baseline's script shard, every explore schedule, and each shard's units.
 * A shard that could not compare makes the whole run one that could not.
 */
export function mergeShardReports(reports: readonly GateReport[]): GateReport {
  const shards = checkShards(reports);
  const failed = reports.find((r) => r.error?.kind === 'internalError') ?? reports.find((r) => r.error);
  if (failed) {
    const { kind, message, code } = failed.error!;
    return { ...failed, shards, error: { kind, ...(code ? { code } : {}), message: `shard ${failed.shard!.index}/${failed.shard!.count}: ${message}` }, shard: undefined };
  }
  const [first] = reports as [GateReport, ...GateReport[]];
  const findings = orderByRootCause(reports.flatMap((r) => r.findings.map(bare)), (f) => (f as ReportedFinding).location);
  const expired = unique(reports.flatMap((r) => r.expiredAcknowledgements ?? []));
  const status = findings.length || expired.length ? 'incompatible' : 'compatible';
  const explore = first.explore && { ...first.explore, schedules: unique(reports.flatMap((r) => r.explore?.schedules ?? [])).sort((a, b) => seedOf(a) - seedOf(b)) };
  const notReproduced = unique(reports.flatMap((r) => r.notReproduced ?? []));
  const notes = unique(reports.flatMap((r) => r.notes ?? []));
  const coverage = reports.flatMap((r) => r.coverage ?? []);
  const expiring = unique(reports.flatMap((r) => r.expiringAcknowledgements ?? []));
  const { shard: _shard, ...common } = first;
  return {
    ...common,
    status,
    exitCode: EXIT_CODES[status],
    rulesRun: unique(reports.flatMap((r) => r.rulesRun)),
    findings,
    acknowledged: unique(reports.flatMap((r) => r.acknowledged), (a) => key({ ...a, finding: bare(a.finding) })),
    staleAcknowledgements: staleInEveryShard(reports),
    ...(expired.length ? { expiredAcknowledgements: expired } : { expiredAcknowledgements: undefined }),
    ...(expiring.length ? { expiringAcknowledgements: expiring } : { expiringAcknowledgements: undefined }),
    notReproduced: notReproduced.length ? notReproduced : undefined,
    notes: notes.length ? notes : undefined,
    coverage: coverage.length ? coverage : undefined,
    explore,
    shards,
  };
}
