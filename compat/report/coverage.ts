import { coverageLine, type CoverageReport } from '../coverage/measure.js';
import { behaviourLine, type BehaviourReport } from '../coverage/behaviour.js';
import { BEHAVIOUR_EXEMPTIONS } from '../coverage/behaviour-exemptions.js';
import { ghData, ghProperty, xmlEscape } from './escape.js';

/** Coverage of one baseline's journeys; `baseline` is set in a matrix run. */
export interface BaselineCoverage extends CoverageReport {
  readonly baseline: string;
  /** Steps every pairing skipped because a build's peers cannot drive them: the old entries left uncovered are reported under them, once. */
  readonly undrivableSteps?: readonly string[];
  /** What the walks reached of the behaviour table (compat/coverage/behaviour-table.ts); absent where nothing was walked. */
  readonly behaviour?: BehaviourReport;
}

/** The old entries no journey exercised against this baseline. */
const oldGaps = (c: BaselineCoverage) => c.uncovered.filter((u) => !u.isNew);

/**
 * Against a release whose peers cannot drive some steps, its old gaps are one
 * line (the steps, the entries); otherwise each gap is its own warning, with the advice.
 */
function undrivableSummary(c: BaselineCoverage): string | undefined {
  const steps = c.undrivableSteps ?? [];
  const gaps = oldGaps(c);
  if (!steps.length || !gaps.length) return undefined;
  const keys = [...new Set(gaps.map((u) => u.key))];
  return `${keys.length} old entr${keys.length === 1 ? 'y' : 'ies'} not exercised against ${c.baseline}, whose peers cannot drive ${steps.join(', ')}: ${keys.join(', ')}`;
}

/** How many old uncovered entries the text report names before it summarises the rest. */
const NAMED_WARNINGS = 12;

/** One short line per direction; `verbose` lists what was reached, what was not, and the exemptions with their reasons. */
function behaviourTextLines(c: BaselineCoverage, matrix: boolean, verbose: boolean): string[] {
  if (!c.behaviour) return [];
  const out: string[] = [];
  for (const d of c.behaviour.directions) {
    out.push(`behaviour ${d.direction}${matrix ? ` against ${c.baseline}` : ''}: ${behaviourLine(d)}`);
    if (!verbose) continue;
    if (d.unreached.length) out.push(`  not reached: ${d.unreached.join(', ')}`);
    for (const key of d.exempt) out.push(`  exempt: ${key}: ${BEHAVIOUR_EXEMPTIONS[key]}`);
    if (d.onlyExplored.length) out.push(`  reached by explore alone: ${d.onlyExplored.join(', ')}`);
    if (d.notWalked.length) out.push(`  not judged (their walk was left out): ${d.notWalked.join(', ')}`);
    if (d.senderPolicy.length) out.push(`  the sender's choice, not judged: ${d.senderPolicy.join(', ')}`);
    out.push(`  reached: ${d.reached.join(', ')}`);
  }
  if (c.behaviour.notJudged) out.push(`  behaviour no walk reached is not judged against ${c.baseline}: ${c.behaviour.notJudged}`);
  const leftOut = Object.entries(c.behaviour.walksLeftOut ?? {});
  if (leftOut.length) out.push(`  behaviour only ${leftOut.map(([walk]) => walk).join(', ')} reach${leftOut.length > 1 ? '' : 'es'} is not judged: ${leftOut.map(([, why]) => why).join('; ')}`);
  return out;
}

export function coverageTextLines(coverage: readonly BaselineCoverage[], matrix: boolean, verbose = false): string[] {
  const out: string[] = [];
  for (const c of coverage) {
    for (const d of c.directions) out.push(`coverage ${d.direction}${matrix ? ` against ${c.baseline}` : ''}: ${coverageLine(d.counts)}`);
    out.push(...behaviourTextLines(c, matrix, verbose));
    const summary = undrivableSummary(c);
    if (summary) {
      out.push(`  ${summary}`);
      continue;
    }
    const warnings = oldGaps(c);
    for (const u of warnings.slice(0, NAMED_WARNINGS)) out.push(`  warning: ${u.key} not exercised in ${u.direction}`);
    if (warnings.length > NAMED_WARNINGS) out.push(`  warning: ${warnings.length - NAMED_WARNINGS} more entries not exercised (--format json lists them all)`);
  }
  return out;
}

/** One passing JUnit testcase per direction, its figures in system-out: coverage is measured, its gaps are findings. */
export function coverageJunitCases(coverage: readonly BaselineCoverage[], matrix: boolean): string[] {
  return coverage.flatMap((c) =>
    c.directions.map((d) => {
      const gaps = c.uncovered.filter((u) => u.direction === d.direction).map((u) => `${u.isNew ? 'new, not exercised' : 'warning'}: ${u.key}`);
      const behaviour = c.behaviour?.directions.find((b) => b.direction === d.direction);
      const out = [coverageLine(d.counts), ...gaps, ...(behaviour ? [`behaviour: ${behaviourLine(behaviour)}`, ...behaviour.unreached.map((k) => `behaviour not reached: ${k}`)] : [])].join('\n');
      return `    <testcase classname="termwire.compat.coverage" name="${xmlEscape(`coverage [${d.direction}]${matrix ? ` against ${c.baseline}` : ''}`)}"><system-out>${xmlEscape(out)}</system-out></testcase>`;
    }),
  );
}

/** A notice per direction with its figures, and a warning per old entry no journey exercises. */
export function coverageAnnotations(coverage: readonly BaselineCoverage[]): string[] {
  const lines: string[] = [];
  for (const c of coverage) {
    for (const d of c.directions) lines.push(`::notice title=${ghProperty(`coverage ${d.direction}`)}::${ghData(coverageLine(d.counts))}`);
    for (const d of c.behaviour?.directions ?? []) lines.push(`::notice title=${ghProperty(`behaviour ${d.direction}`)}::${ghData(behaviourLine(d))}`);
    const summary = undrivableSummary(c);
    if (summary) lines.push(`::notice title=${ghProperty(`${c.baseline} cannot drive every step`)}::${ghData(summary)}`);
    else for (const u of oldGaps(c)) lines.push(`::warning title=${ghProperty(`not exercised: ${u.key}`)}::${ghData(`${u.key} crossed no wire in ${u.direction}; add a journey step that sends it`)}`);
  }
  return lines;
}
