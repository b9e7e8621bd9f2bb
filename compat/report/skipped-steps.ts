/** One note per reason: which journey steps no pairing walked, so a green run says what it did not see. */
export function skippedStepNotes(skipped: ReadonlyMap<string, string>): string[] {
  const byReason = new Map<string, string[]>();
  for (const [step, reason] of skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), step]);
  return [...byReason].map(([reason, steps]) => `journey step${steps.length > 1 ? 's' : ''} ${steps.join(', ')} skipped in every pairing: ${reason}`);
}
