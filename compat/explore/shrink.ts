import { type Schedule, scheduleOf } from './schedule.js';

/** Walks spent shrinking one schedule at most: each is four pairings. */
export const MAX_SHRINK_WALKS = 24;

/**
 * A shorter schedule that still fails: moves are taken out one at a time,
 * last first, and a removal is kept when the walk without that move still
 * shows the finding; it stops when no single removal does (or at
 * MAX_SHRINK_WALKS). A walk that happens not to fail keeps its move, so a
 * busy machine can only leave a schedule longer, never make it wrong.
 */
export async function shrinkSchedule(schedule: Schedule, stillFails: (candidate: Schedule) => Promise<boolean>): Promise<{ schedule: Schedule; walks: number }> {
  let moves = [...schedule.moves];
  let walks = 0;
  for (let removed = true; removed && walks < MAX_SHRINK_WALKS; ) {
    removed = false;
    for (let i = moves.length - 1; i >= 0 && walks < MAX_SHRINK_WALKS; i--) {
      const candidate = moves.filter((_, k) => k !== i);
      walks++;
      if (await stillFails(scheduleOf(schedule.seed, candidate))) {
        moves = candidate;
        removed = true;
      }
    }
  }
  return { schedule: scheduleOf(schedule.seed, moves), walks };
}
