import { consequencesOf, directionsCovered, type ReportedFinding } from './root-causes.js';
import { ACKNOWLEDGED_BREAKS_PATH, evidenceLines, fixLine, notReproducedLine, pasteableAcknowledgement, where } from './finding-lines.js';
import { coverageTextLines } from './coverage.js';
import type { GateReport, ShardReport } from './model.js';
import { describeEntry, isoDay, MAX_EXPIRY_DAYS } from './acknowledged.js';

export interface TextStyle {
  readonly color: boolean;
  /** Every acknowledged finding in full; otherwise one line per acknowledgement, with how many findings it covered. */
  readonly verbose?: boolean;
}
type Paint = (code: string, s: string) => string;

function evidence(f: ReportedFinding, indent: string, paint: Paint): string[] {
  return evidenceLines(f).map((l) => `${indent}${l.kind === 'expected' ? paint('31', `- ${l.text}`) : l.kind === 'observed' ? paint('32', `+ ${l.text}`) : l.text}`);
}

/** A root cause with its fix, the findings it explains beneath it, and the entry that would acknowledge it. */
function causeLines(root: ReportedFinding, all: readonly ReportedFinding[], paint: Paint, today: string): string[] {
  const lines = [`${paint('31', '✗')} ${paint('1', root.ruleId)}  ${where(root)}`, `    ${root.subject}: ${root.message}`, ...evidence(root, '    ', paint), `    ${fixLine(root)}`];
  if (root.explore) lines.push(`    schedule: ${root.explore.moves.join(' → ') || '(no moves)'}${root.explore.capabilityOff ? '' : `; replay: npm run compat -- --explore 1 --seed ${root.explore.seed}`}`);
  if (root.explore?.replayFile) lines.push(`    shrunk to: ${root.explore.shrunk?.join(' → ') || '(no moves)'}; replay it: npm run compat -- --replay ${root.explore.replayFile}`);
  const explained = consequencesOf(root, all);
  if (explained.length) {
    lines.push(`    explains ${explained.length} more finding(s):`);
    for (const f of explained) lines.push(`      ↳ ${paint('1', f.ruleId)}  ${where(f)}`, `          ${f.subject}: ${f.message}`, ...evidence(f, '          ', paint));
  }
  lines.push(
    `    if intended, acknowledge it${explained.length ? ' (and what it explains)' : ''} with this entry in ${ACKNOWLEDGED_BREAKS_PATH}:`,
    `      ${pasteableAcknowledgement(root, today, directionsCovered(root, all))}`,
  );
  return lines;
}

/** The default report: root causes first, each with what it explains, how to fix it and how to acknowledge it. */
export function renderText(report: GateReport, style: TextStyle): string {
  const paint: Paint = (code, s) => (style.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const out: string[] = [];
  if (report.error) {
    out.push(
      report.error.kind === 'internalError'
        ? paint('31', `termwire compat: internal error: the checker itself broke. This is a bug in termwire, not a finding; please report it with the text below.\n${report.error.message}`)
        : paint('31', `termwire compat: could not compare (exit 2): ${report.error.message}`),
    );
    return out.join('\n') + '\n';
  }
  const against = report.baselines.map((b) => `${b.label} (${b.commit.slice(0, 12)}${b.version ? `, ${b.version}` : ''})`).join(', ');
  // Versions alone can read the same (a change not yet released): the trees are what differ.
  const current = report.current ? `working tree ${report.current.version} (${describeTree(report.current.commit)})` : 'working tree';
  out.push(`termwire compat: ${current} against ${against}${report.staticOnly ? ' — static pass only' : ''}${report.passes ? ` — passes ${report.passes.join(', ')} only` : ''}`);
  const file = report.acknowledgementsFile;
  if (file) {
    const pending = file.notApplied ? `; ${file.notApplied} entr${file.notApplied === 1 ? 'y' : 'ies'} of this tree's ${ACKNOWLEDGED_BREAKS_PATH} not in it ${file.notApplied === 1 ? 'applies' : 'apply'} only once reviewed and merged` : '';
    out.push(`acknowledgements: ${file.found ? `from ${file.path}` : `${file.path} does not exist, so nothing is acknowledged`}${pending}`);
  }
  const today = report.date ?? isoDay(new Date());
  // A finding whose cause was acknowledged is not failing, so it is shown as a root here.
  const failingIds = new Set(report.findings.map((f) => f.id));
  const roots = report.findings.filter((f) => f.causedBy === undefined || !failingIds.has(f.causedBy));
  for (const root of roots) out.push('', ...causeLines(root, report.findings, paint, today));
  for (const e of report.expiredAcknowledgements ?? []) {
    out.push('', `${paint('31', '✗')} expired acknowledgement ${describeEntry(e)} (owner ${e.owner}) expired on ${e.expires}: ${e.findings.join(', ')} fail${e.findings.length === 1 ? 's' : ''} again; fix the break, or renew "expires" (at most ${MAX_EXPIRY_DAYS} days ahead) in ${ACKNOWLEDGED_BREAKS_PATH} under review`);
  }
  if (style.verbose) {
    for (const a of report.acknowledged) {
      out.push('', `${paint('33', '~')} ${paint('1', a.finding.ruleId)}  ${where(a.finding)}`, `    ${a.finding.subject}: ${a.finding.message}`, ...evidence(a.finding, '    ', paint), `    acknowledged (owner ${a.owner}, until ${a.expires}): ${a.reason}`);
    }
  } else if (report.acknowledged.length) out.push('', ...acknowledgementLines(report.acknowledged, paint));
  for (const s of report.staleAcknowledgements) {
    out.push('', `${paint('33', '!')} stale acknowledgement ${describeEntry(s)}: it matched nothing (${s.unmatched}); remove it from ${ACKNOWLEDGED_BREAKS_PATH}`);
  }
  for (const e of report.expiringAcknowledgements ?? []) {
    out.push('', `${paint('33', '!')} acknowledgement ${describeEntry(e)} (owner ${e.owner}) expires on ${e.expires}, in ${e.daysLeft} day(s): renew it before then, or the break it accepts fails the gate`);
  }
  for (const f of report.notReproduced ?? []) out.push('', `${paint('33', '?')} not reproduced: ${notReproducedLine(f)}`);
  for (const n of report.notes ?? []) out.push('', `${paint('2', 'note:')} ${n}`);
  if (report.coverage?.length) out.push('', ...coverageTextLines(report.coverage, report.baselines.length > 1, style.verbose ?? false));
  if (report.explore) out.push('', `explore: ${report.explore.count} journey(s) per pairing from seed ${report.explore.seed}`, ...report.explore.schedules.map((s) => `  ${s}`));
  if (report.shard) out.push('', `shard ${report.shard.index}/${report.shard.count}: ${shardLine(report.shard)}`);
  if (report.shards) out.push('', `merged from ${report.shards.length} shard(s):`, ...report.shards.map((s) => `  ${s.index}/${s.count}: ${shardLine(s)}`));
  for (const b of report.blindSpots ?? []) out.push('', paint('33', `blind spot: ${blindSpotLine(b)}`));
  if (report.cost) out.push('', paint('2', costLine(report.cost)));
  out.push('');
  const counts =
    `${report.findings.length} finding(s)${report.findings.length ? ` from ${roots.length} root cause(s)` : ''}, ` +
    `${report.acknowledged.length} acknowledged, ${report.staleAcknowledgements.length} stale acknowledgement(s)` +
    (report.expiredAcknowledgements?.length ? `, ${report.expiredAcknowledgements.length} expired acknowledgement(s)` : '') +
    (report.notReproduced?.length ? `, ${report.notReproduced.length} not reproduced` : '');
  out.push(report.status === 'compatible' ? paint('32', `compatible: ${counts}`) : paint('31', `INCOMPATIBLE: ${counts}`));
  return out.join('\n') + '\n';
}

/** One line per acknowledgement in force: its entry, who answers for it, and how many findings it covered in which directions. */
function acknowledgementLines(acknowledged: GateReport['acknowledged'], paint: Paint): string[] {
  const byEntry = new Map<string, GateReport['acknowledged'][number][]>();
  for (const a of acknowledged) byEntry.set(a.entry, [...(byEntry.get(a.entry) ?? []), a]);
  return [...byEntry].map(([entry, covered]) => {
    const own = covered.find((a) => !a.reason.startsWith('consequence of ')) ?? covered[0]!;
    const directions = [...new Set(covered.map((a) => a.finding.direction))].join(', ');
    return `${paint('33', '~')} acknowledged ${entry} (owner ${own.owner}, until ${own.expires}): ${covered.length} finding(s) in ${directions}; ${own.reason}`;
  }).concat(`  (--verbose, or --format json, lists every acknowledged finding)`);
}

/** `old client × new host judged only up to step subscribe, ...`: a direction an acknowledged break stops, and the surface no walk reached past it. */
function blindSpotLine(b: NonNullable<GateReport['blindSpots']>[number]): string {
  return `${b.direction}${b.baseline ? ` against ${b.baseline}` : ''} is judged only up to step ${b.step}, where the acknowledged ${b.entry} stops its journeys: ${b.unwalkedPercent}% of its surface went unwalked (${b.coverage}), until the next release`;
}

/** `cost: 14.2 CPU-s (gate process 3.1; peers: script 4.0, pty 1.2, ...; builds and git 2.1)`: the run's CPU, and its processes' by what they ran for. */
export function costLine(cost: NonNullable<GateReport['cost']>): string {
  const parts = Object.entries(cost.peerCpuSeconds).map(([what, s]) => `${what} ${s}`);
  const other = cost.otherCpuSeconds ? `; builds and git ${cost.otherCpuSeconds}` : '';
  return `cost: ${cost.cpuSeconds} CPU-s (gate process ${cost.gateCpuSeconds}${parts.length ? `; peers: ${parts.join(', ')}` : ''}${other})`;
}

/** What one shard walked: per baseline, its scripted comparison and its explore seeds. */
function shardLine(shard: ShardReport): string {
  const parts = shard.units
    .filter((u) => u.script || u.exploreSeeds.length)
    .map((u) => `against ${u.baseline}: ${[u.script ? 'the script' : '', u.exploreSeeds.length ? `explore seeds ${u.exploreSeeds.join(', ')}` : ''].filter(Boolean).join(', ')}`);
  return parts.join('; ') || 'nothing (more shards than units)';
}

/** `<head>+tree:<tree>` as `HEAD abc123456789, tree def012345678`. */
function describeTree(commit: string): string {
  const [head, tree] = commit.split('+tree:');
  return tree ? `HEAD ${head!.slice(0, 12)}, tree ${tree.slice(0, 12)}` : commit.slice(0, 12);
}
