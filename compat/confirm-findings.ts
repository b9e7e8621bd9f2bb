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
  /** Found by more than half the walks: a break. */
  readonly confirmed: Finding[];
  /** Found by one walk only: a divergence the same builds did not repeat. Reported, never failing. */
  readonly notReproduced: Finding[];
}

export interface ConfirmedWalk<R> extends Confirmation {
  /** The first walk's recordings: coverage and schedules are read from them. */
  readonly first: R;
  /** What disturbed a walk (a client giving up on a link that was up), walk by walk: said in the report, never a finding. */
  readonly disturbed: string[];
}

export interface Walks<R> {
  readonly first: () => Promise<R>;
  /** A confirming walk: one pairing at a time, with fresh references; given what the walks so far found. */
  readonly again: (found: readonly Finding[]) => Promise<R>;
}

/**
 * Walks, judges, and trusts no single walk that found anything or was
 * disturbed, but for findings that `standing` says follow from a cause already
 * standing (a static finding, or a break a confirming walk confirmed): those
 * are taken from the first walk as they are. A clean first walk that found nothing is the verdict. Otherwise a
 * second walk (`again`) follows; when the two agree, that is the verdict.
 * When they differ, or both were disturbed, a third walk settles each finding by majority: a break in
 * the code shows in every walk a busy machine did not disturb, so it is in at
 * least two of three, while a divergence a busy machine caused rarely repeats.
 * A walk a stall masked (a client that gave up on its link renumbers every
 * stream after it, so the totals compared there are not compared) is outvoted
 * rather than trusted.
 */
export async function walkAndConfirm<R>(
  walks: Walks<R>,
  judgeAll: (recordings: R) => Finding[],
  onConfirming: (found: readonly Finding[], why: string) => void,
  disturbances: (recordings: R) => string[] = () => [],
  standing: (found: readonly Finding[]) => ReadonlySet<Finding> = () => new Set(),
): Promise<ConfirmedWalk<R>> {
  const first = await walks.first();
  // What repeats or follows from a cause that already stands needs no walk of its own: it is reported with that cause.
  const open = (found: readonly Finding[]) => ((stand) => found.filter((f) => !stand.has(f)))(standing(found));
  const found = judgeAll(first);
  const stands = standing(found);
  const judge = (r: R) => open(judgeAll(r));
  const settled = await confirmOpen(first, walks, judge, onConfirming, disturbances);
  return { ...settled, confirmed: [...found.filter((f) => stands.has(f)), ...settled.confirmed] };
}

async function confirmOpen<R>(first: R, walks: Walks<R>, judge: (recordings: R) => Finding[], onConfirming: (found: readonly Finding[], why: string) => void, disturbances: (recordings: R) => string[]): Promise<ConfirmedWalk<R>> {
  const found = [judge(first)];
  const disturbedIn = [disturbances(first)];
  if (!found[0]!.length && !disturbedIn[0]!.length) return { first, confirmed: [], notReproduced: [], disturbed: [] };
  for (let walk = 2; walk <= 3; walk++) {
    const why = walk === 2 ? (found[0]!.length ? 'to confirm them' : 'as the first walk was disturbed') : sameKeys(found[0]!, found[1]!) ? 'a third time, as both walks were disturbed' : 'a third time, as the two walks differ';
    onConfirming(found.flat(), why);
    const again = await walks.again(found.flat());
    disturbedIn.push(disturbances(again));
    found.push(judge(again));
    // Two walks that agree are the verdict unless both were disturbed: a break both masked would pass unseen.
    if (walk === 2 && sameKeys(found[0]!, found[1]!) && !(disturbedIn[0]!.length && disturbedIn[1]!.length)) break;
  }
  const disturbed = disturbedIn.flatMap((lines, walk) => lines.map((d) => `walk ${walk + 1}: ${d}`));
  return { first, ...settleByMajority(found, disturbedIn.map((lines) => lines.length > 0)), disturbed };
}

function sameKeys(a: readonly Finding[], b: readonly Finding[]): boolean {
  const [ka, kb] = [new Set(a.map(findingKey)), new Set(b.map(findingKey))];
  return ka.size === kb.size && [...ka].every((k) => kb.has(k));
}

/**
 * A finding is confirmed when more than half the walks found it (both of two,
 * two of three), unless every walk that found it was disturbed and a calm one
 * did not. One that a calm walk found is confirmed when every walk that missed
 * it was disturbed (a give-up's reconnect renumbers the streams whose totals
 * show the break). The rest are not reproduced. Each is reported as the
 * earliest undisturbed walk that found it saw it (the earliest walk when all
 * were disturbed): a walk may find one break on several streams, so a key
 * carries all of that walk's findings, and a disturbed walk names its streams
 * by connections a calm one does not have.
 */
export function settleByMajority(walks: ReadonlyArray<readonly Finding[]>, disturbed: readonly boolean[] = []): Confirmation {
  const walksOf = new Map<string, number[]>();
  walks.forEach((findings, walk) => findings.forEach((f) => (walksOf.get(findingKey(f)) ?? walksOf.set(findingKey(f), []).get(findingKey(f))!).push(walk)));
  const reportingWalk = (seen: number[]) => seen.find((walk) => !disturbed[walk]) ?? seen[0]!;
  const confirmed: Finding[] = [];
  const notReproduced: Finding[] = [];
  walks.forEach((findings, walk) => {
    for (const f of findings) {
      const seen = [...new Set(walksOf.get(findingKey(f))!)];
      if (walk !== reportingWalk(seen)) continue;
      // A calm walk that missed it outweighs walks that found it only while a client gave up its link (the extra reconnect is the finding).
      const onlyWhereDisturbed = seen.every((w) => disturbed[w]) && walks.some((_, w) => !disturbed[w] && !seen.includes(w));
      // And the other way round: walks that missed it only while disturbed are outweighed by a calm walk that found it.
      const missedOnlyWhereDisturbed = seen.some((w) => !disturbed[w]) && walks.every((_, w) => seen.includes(w) || disturbed[w]);
      ((seen.length * 2 > walks.length && !onlyWhereDisturbed) || missedOnlyWhereDisturbed ? confirmed : notReproduced).push(f);
    }
  });
  return { confirmed, notReproduced };
}
