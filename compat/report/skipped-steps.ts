import type { UndrivableSteps } from '../journey/drivable.js';

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
