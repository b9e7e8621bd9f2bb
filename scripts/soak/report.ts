import { SOAK_TARGETS, type SoakReport } from './run.js';

const MiB = 1024 * 1024;
const mark = (ok: boolean) => (ok ? 'ok  ' : 'MISS');

/** The soak's figures as text, each target with ok or MISS. */
export function formatSoakReport(r: SoakReport): string {
  const lines = [
    `soak: ${(r.durationMs / 1000).toFixed(0)} s against one termwire serve`,
    `${mark(r.peakRssBytes < SOAK_TARGETS.peakRssBytes)} peak RSS            ${(r.peakRssBytes / MiB).toFixed(0)} MiB (target < ${SOAK_TARGETS.peakRssBytes / MiB} MiB)`,
    `${mark(r.p99Ms < SOAK_TARGETS.healthyP99Ms)} healthy echo        p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms over ${r.echoes} echoes, ${r.lostEchoes} lost (target p99 < ${SOAK_TARGETS.healthyP99Ms} ms)`,
    `${mark(r.exitMs !== undefined && r.exitMs < SOAK_TARGETS.exitMs)} exit on SIGTERM     ${r.exitMs === undefined ? 'did not exit in time (killed)' : `${r.exitMs.toFixed(0)} ms`} (target < ${SOAK_TARGETS.exitMs} ms)`,
    'abusers (outcome: count):',
  ];
  for (const a of r.abusers) {
    const outcomes = [...a.outcomes].sort((x, y) => y[1] - x[1]).map(([o, n]) => `${o}: ${n}`);
    lines.push(`  ${a.name} [${a.defendedBy}]: ${outcomes.join(', ') || 'nothing observed'}`);
  }
  return lines.join('\n');
}
