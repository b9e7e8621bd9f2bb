import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { coverageTextLines } from '../../compat/report/coverage.js';
import type { GateReport } from '../../compat/report/model.js';

/** What a release must pass before it is committed: the test suite, and the gate against the newest release. */
export interface ReleaseChecks {
  /** Resolves when the suite passed; rejects with why not. */
  test(cwd: string): Promise<void>;
  /** The gate's JSON report against the newest release (exit 2 with NO_BASELINE before the first release). */
  gate(cwd: string): Promise<GateReport>;
}

export class CheckFailed extends Error {
  override readonly name = 'CheckFailed';
}

/** The README's two commands, run as a user would: `npm test`, then the gate (`npm run compat`) with its report as JSON. */
export const REAL_CHECKS: ReleaseChecks = {
  async test(cwd) {
    const r = await execa('npm', ['test'], { cwd, reject: false, stdio: 'inherit' });
    if (r.exitCode !== 0) throw new CheckFailed(`npm test failed (exit ${r.exitCode})`);
  },
  async gate(cwd) {
    const out = join(cwd, '.termwire', 'release-compat.json');
    const r = await execa(process.execPath, [join(cwd, 'bin', 'termwire.js'), 'compat', '--format', 'json', '--output', out], { cwd, reject: false, stdio: ['ignore', 'inherit', 'inherit'] });
    try {
      return JSON.parse(readFileSync(out, 'utf8')) as GateReport;
    } catch {
      throw new CheckFailed(`the gate wrote no report (exit ${r.exitCode})`);
    }
  },
};

/** The gate's verdict as release notes: against what, the verdict, what was acknowledged and why, and the coverage lines. */
export function compatibilityNotes(report: GateReport): string[] {
  if (report.error?.code === 'NO_BASELINE') return ['The first release: there is no earlier release to gate against.'];
  const against = report.baselines.map((b) => `${b.label} (${b.commit.slice(0, 12)})`).join(', ');
  return [
    `termwire compat against ${against}: ${report.status}, ${report.findings.length} finding(s), ${report.acknowledged.length} acknowledged`,
    ...report.acknowledged.map((a) => `acknowledged ${a.finding.ruleId} · ${a.finding.direction} · ${a.finding.subject}: ${a.reason}`),
    ...coverageTextLines(report.coverage ?? [], report.baselines.length > 1),
  ];
}

/** Why a gate report stops a release, or undefined when it may go ahead. */
export function gateRefusal(report: GateReport): string | undefined {
  if (report.error?.code === 'NO_BASELINE') return undefined;
  if (report.error) return `the gate could not compare (${report.error.code ?? report.error.kind}): ${report.error.message}`;
  if (report.status !== 'compatible') return `the gate found ${report.findings.length} break(s) against ${report.baselines.map((b) => b.label).join(', ')}: fix them, or acknowledge the intended ones in compat/acknowledged-breaks.json`;
  return undefined;
}
