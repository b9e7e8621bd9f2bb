import type { Finding } from '../rules/finding.js';
import { brief } from './escape.js';
import { coverageTextLines } from './coverage.js';
import type { GateReport } from './model.js';

export interface TextStyle { readonly color: boolean }

function where(f: Finding): string {
  const parts: string[] = [f.direction];
  if (f.step) parts.push(`step ${f.step}${f.occurrence ? ` (${f.occurrence})` : ''}`);
  if (f.baseline) parts.push(`baseline ${f.baseline}`);
  if (f.explore) parts.push(`explore seed ${f.explore.seed}`);
  return parts.join(' · ');
}

function findingLines(f: Finding, mark: string, paint: (c: string, s: string) => string): string[] {
  const lines = [`${mark} ${paint('1', f.ruleId)}  ${where(f)}`, `    ${f.subject}: ${f.message}`];
  if ('before' in f.evidence) lines.push(paint('31', `    - expected: ${brief(f.evidence.before)}`));
  if ('after' in f.evidence) lines.push(paint('32', `    + observed: ${brief(f.evidence.after)}`));
  if (f.explore) lines.push(`    schedule: ${f.explore.moves.join(' → ') || '(no moves)'}; replay: npm run compat -- --explore 1 --seed ${f.explore.seed}`);
  return lines;
}

/** The default report: a readable diff in a terminal or CI log. */
export function renderText(report: GateReport, style: TextStyle): string {
  const paint = (code: string, s: string) => (style.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const out: string[] = [];
  if (report.error) {
    out.push(
      report.error.kind === 'internalError'
        ? paint('31', `termwire compat: INTERNAL ERROR — the checker itself broke (this is a bug in the gate, not a finding):\n${report.error.message}`)
        : paint('31', `termwire compat: could not compare (exit 2): ${report.error.message}`),
    );
    return out.join('\n') + '\n';
  }
  const against = report.baselines.map((b) => `${b.label} (${b.commit.slice(0, 12)}${b.version ? `, ${b.version}` : ''})`).join(', ');
  // Versions alone can read the same (a change not yet released): the trees are what differ.
  const current = report.current ? `working tree ${report.current.version} (${describeTree(report.current.commit)})` : 'working tree';
  out.push(`termwire compat: ${current} against ${against}${report.staticOnly ? ' — static pass only' : ''}`);
  for (const f of report.findings) out.push('', ...findingLines(f, paint('31', '✗'), paint));
  for (const a of report.acknowledged) out.push('', ...findingLines(a.finding, paint('33', '~'), paint), `    acknowledged: ${a.reason}`);
  for (const s of report.staleAcknowledgements) {
    out.push('', `${paint('33', '!')} stale acknowledgement ${s.ruleId} · ${s.direction}${s.subject ? ` · ${s.subject}` : ''}: it matched nothing; remove it from compat/acknowledged-breaks.json`);
  }
  for (const n of report.notes ?? []) out.push('', `${paint('2', 'note:')} ${n}`);
  if (report.coverage?.length) out.push('', ...coverageTextLines(report.coverage, report.baselines.length > 1));
  if (report.explore) out.push('', `explore: ${report.explore.count} journey(s) per pairing from seed ${report.explore.seed}`, ...report.explore.schedules.map((s) => `  ${s}`));
  out.push('');
  const counts = `${report.findings.length} finding(s), ${report.acknowledged.length} acknowledged, ${report.staleAcknowledgements.length} stale acknowledgement(s)`;
  out.push(report.status === 'compatible' ? paint('32', `compatible: ${counts}`) : paint('31', `INCOMPATIBLE: ${counts}`));
  return out.join('\n') + '\n';
}

/** `<head>+tree:<tree>` as `HEAD abc123456789, tree def012345678`. */
function describeTree(commit: string): string {
  const [head, tree] = commit.split('+tree:');
  return tree ? `HEAD ${head!.slice(0, 12)}, tree ${tree.slice(0, 12)}` : commit.slice(0, 12);
}
