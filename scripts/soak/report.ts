import type { Attack } from './attacks.js';
import { metTargets, SOAK_TARGETS, type SoakReport } from './run.js';

const MiB = 1024 * 1024;
const mark = (ok: boolean) => (ok ? 'ok  ' : 'MISS');
const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;

function outcomesOf(r: SoakReport): string[] {
  return r.abusers.map((a) => {
    const outcomes = [...a.outcomes].sort((x, y) => y[1] - x[1]).map(([o, n]) => `${o}: ${n}`);
    return `${a.name} [${a.defendedBy}]: ${outcomes.join(', ') || 'nothing observed'}`;
  });
}

function loadText(r: SoakReport): string {
  return `${r.loadAverage.before.toFixed(1)} → ${r.loadAverage.after.toFixed(1)}`;
}

function exitText(r: SoakReport): string {
  return r.exitMs === undefined ? 'did not exit in time (killed)' : `${r.exitMs.toFixed(0)} ms`;
}

/** The mixed soak's figures as text, each target with ok or MISS. */
export function formatSoakReport(r: SoakReport): string {
  const lines = [
    `soak: ${(r.durationMs / 1000).toFixed(0)} s against one termwire serve, every abuser at once`,
    `${mark(r.survived)} server alive        ${r.survived ? 'running when the SIGTERM came' : 'EXITED while attacked'}`,
    `${mark(r.peakRssBytes < SOAK_TARGETS.mixPeakRssBytes)} peak RSS            ${mib(r.peakRssBytes)}, ${mib(r.restRssBytes)} at rest (target < ${mib(SOAK_TARGETS.mixPeakRssBytes)})`,
    `${mark(r.p99Ms < SOAK_TARGETS.healthyP99Ms)} healthy echo        p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms over ${r.echoes} echoes, ${r.lostEchoes} lost (target p99 < ${SOAK_TARGETS.healthyP99Ms} ms)`,
    `${mark(r.unansweredSubscribes === 0 && r.subscribeP99Ms < SOAK_TARGETS.subscribeP99Ms && r.subscribeMaxMs < SOAK_TARGETS.subscribeMaxMs)} newcomer Subscribe  p50 ${r.subscribeP50Ms.toFixed(0)} / p99 ${r.subscribeP99Ms.toFixed(0)} / max ${r.subscribeMaxMs.toFixed(0)} ms over ${r.subscribes}, ${r.unansweredSubscribes} unanswered (target p99 < ${SOAK_TARGETS.subscribeP99Ms} ms quiet, max < ${SOAK_TARGETS.subscribeMaxMs} ms)`,
    `     load average        ${loadText(r)}`,
    `${mark(r.exitMs !== undefined && r.exitMs < SOAK_TARGETS.exitMs)} exit on SIGTERM     ${exitText(r)} while attacked (target < ${SOAK_TARGETS.exitMs} ms)`,
    'abusers (outcome: count):',
    ...outcomesOf(r).map((l) => `  ${l}`),
  ];
  return lines.join('\n');
}

/** One line of figures per attack run alone, then what each attacker got; the per-screen cost where the attack fills screens. */
export function formatAttackReports(runs: ReadonlyArray<{ readonly attack: Attack; readonly report: SoakReport }>): string {
  const lines = [
    `soak per attack: each alone against a fresh termwire serve (targets: alive, RSS < ${mib(SOAK_TARGETS.attackPeakRssBytes)}, echo p99 < ${SOAK_TARGETS.healthyP99Ms} ms, Subscribe p99 < ${SOAK_TARGETS.subscribeP99Ms} ms on a quiet machine and max < ${SOAK_TARGETS.subscribeMaxMs} ms, no newcomer lost, exit < ${SOAK_TARGETS.exitMs} ms)`,
  ];
  for (const { attack, report: r } of runs) {
    lines.push(
      `${mark(metTargets(r, SOAK_TARGETS.attackPeakRssBytes))} ${attack.name}: ${r.survived ? 'alive' : 'EXITED'}, peak RSS ${mib(r.peakRssBytes)} (rest ${mib(r.restRssBytes)}), echo p50 ${r.p50Ms.toFixed(1)} / p99 ${r.p99Ms.toFixed(1)} ms (${r.lostEchoes} lost), Subscribe p50 ${r.subscribeP50Ms.toFixed(0)} / p99 ${r.subscribeP99Ms.toFixed(0)} / max ${r.subscribeMaxMs.toFixed(0)} ms (${r.unansweredSubscribes} of ${r.subscribes + r.unansweredSubscribes} unanswered), ${r.lostNewcomers} newcomers lost, SIGTERM ${exitText(r)}, load ${loadText(r)}`,
    );
    lines.push(`       before: ${attack.before}`);
    lines.push(...outcomesOf(r).map((l) => `       got: ${l.slice(l.indexOf(': ') + 2)}`));
    const held = attack.costPer ? (r.abusers[0]?.outcomes.get(attack.costPer) ?? 0) : 0;
    if (held > 0) lines.push(`       cost: ${mib((r.peakRssBytes - r.restRssBytes) / held)} per ${attack.costPer!.replace(/ .*/, '')} (${held} held; peak over rest)`);
  }
  return lines.join('\n');
}
