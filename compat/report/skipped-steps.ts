import type { UndrivableSteps } from '../journey/drivable.js';
import type { PairingRecording } from '../recording.js';

/**
 * One note per build whose peers cannot drive some journey steps (an old
 * release's peers drive only what they had): a green run says what it did not
 * see, once per release, never as a step the journey lacks.
 */
export function skippedStepNotes(baselineLabel: string, undrivable: readonly UndrivableSteps[]): string[] {
  return undrivable.map((u) => {
    const who = u.side === 'old' ? baselineLabel : `the working tree (${u.version})`;
    return `${who} cannot drive: ${u.steps.join(', ')} (its peers, peer protocol ${u.peerProtocol}, lack ${u.lackingOps.map((op) => `'${op}'`).join(', ')}); every pairing skips these steps`;
  });
}

/**
 * One note per step a walk could not judge (StepNotJudged: the machine took
 * longer than the promise the step checks), or passed over as not applicable
 * to what a pairing negotiated: a green run names what it did not see.
 */
export function stepsNotWalkedNotes(pairings: readonly PairingRecording[]): string[] {
  const where = new Map<string, Set<string>>();
  for (const p of pairings) {
    for (const step of p.steps) {
      if (step.status !== 'skipped' || !step.reason || !/^not (judged|applicable)/.test(step.reason)) continue;
      const what = `step ${step.name} ${step.reason}`;
      where.set(what, (where.get(what) ?? new Set()).add(`${p.client} client × ${p.host} host`));
    }
  }
  return [...where].map(([what, pairingsOf]) => `${what} (${[...pairingsOf].join(', ')})`);
}
