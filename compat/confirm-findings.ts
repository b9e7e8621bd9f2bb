import type { Finding } from './rules/finding.js';

/**
 * A finding's identity across two walks of the same journeys: the break
 * (rule, direction, subject, step, occurrence, baseline, seed), not its
 * evidence, whose values (timings, counts) may differ from walk to walk.
 */
export function findingKey(f: Finding): string {
  return JSON.stringify([f.ruleId, f.direction, f.subject, f.step ?? null, f.occurrence ?? null, f.baseline ?? null, f.explore?.seed ?? null]);
}

export interface Confirmation {
  /** Found in the first walk and again in the confirming walk: a break. */
  readonly confirmed: Finding[];
  /** Found in one walk only: a divergence the same builds did not repeat. Reported, never failing. */
  readonly notReproduced: Finding[];
}

/**
 * Splits the first walk's findings by whether a second walk of the same
 * builds found them again. A break in the code is in every walk; a divergence
 * that a busy machine caused (an old build's pong deadline firing while its
 * event loop waited for a core) rarely repeats, least of all in a walk that
 * runs one pairing at a time. Findings only the second walk saw are kept as
 * not reproduced too, so nothing either walk saw is dropped.
 */
export function confirmFindings(first: readonly Finding[], again: readonly Finding[]): Confirmation {
  const againKeys = new Set(again.map(findingKey));
  const firstKeys = new Set(first.map(findingKey));
  return {
    confirmed: first.filter((f) => againKeys.has(findingKey(f))),
    notReproduced: [...first.filter((f) => !againKeys.has(findingKey(f))), ...again.filter((f) => !firstKeys.has(findingKey(f)))],
  };
}

export interface ConfirmedWalk<R> extends Confirmation {
  /** The first walk's recordings: coverage and schedules are read from them. */
  readonly first: R;
}

/**
 * Walks, judges, and when the judge finds anything walks again (`again`, one
 * pairing at a time with fresh references) and keeps only what both walks found.
 */
export async function walkAndConfirm<R>(walks: { readonly first: () => Promise<R>; readonly again: (found: readonly Finding[]) => Promise<R> }, judge: (recordings: R) => Finding[], onConfirming: (found: readonly Finding[]) => void): Promise<ConfirmedWalk<R>> {
  const first = await walks.first();
  const found = judge(first);
  if (!found.length) return { first, confirmed: [], notReproduced: [] };
  onConfirming(found);
  return { first, ...confirmFindings(found, judge(await walks.again(found))) };
}
