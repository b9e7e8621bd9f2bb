import { describe, expect, it } from 'vitest';
import { MOVES } from '../../compat/explore/moves.js';
import { describeSchedule, drawSchedule, EXPLORE_MOVES } from '../../compat/explore/schedule.js';

describe('explore schedules', () => {
  it('the same seed draws the same schedule, step for step', () => {
    for (const seed of [0, 1, 2, 4_294_967_295]) {
      const [a, b] = [drawSchedule(seed), drawSchedule(seed)];
      expect(describeSchedule(a), `seed ${seed}`).toBe(describeSchedule(b));
      expect(a.steps.map((s) => s.name), `seed ${seed}`).toEqual(b.steps.map((s) => s.name));
    }
  });

  it('seeds draw different schedules, and over a few hundred seeds every move appears', () => {
    const seen = new Set<string>();
    const schedules = new Set<string>();
    for (let seed = 0; seed < 300; seed++) {
      const s = drawSchedule(seed);
      s.moves.forEach((m) => seen.add(m));
      schedules.add(s.moves.join(','));
    }
    expect([...seen].sort()).toEqual([...MOVES.map((m) => m.name), 'exit'].sort());
    expect(schedules.size).toBeGreaterThan(290);
  });

  it('every schedule subscribes first and ends on the unsubscribe, with its move count in range', () => {
    for (let seed = 0; seed < 200; seed++) {
      const s = drawSchedule(seed);
      const names = s.steps.map((x) => x.name);
      expect(names.slice(0, 2), `seed ${seed}`).toEqual(['subscribe', 'initialSnapshot']);
      expect(names.slice(-2), `seed ${seed}`).toEqual(['unsubscribe', 'inputAfterUnsubscribe']);
      const moves = s.moves.filter((m) => m !== 'exit').length;
      expect(moves, `seed ${seed}`).toBeGreaterThanOrEqual(EXPLORE_MOVES.min);
      expect(moves, `seed ${seed}`).toBeLessThanOrEqual(EXPLORE_MOVES.max);
      // A drop is always followed by its resubscribe: the proxy holds the reconnect until then.
      names.forEach((n, i) => n === 'drop' && expect(names[i + 1], `seed ${seed}`).toBe('resubscribe'));
    }
  });

  it('a step drawn twice waits for its own output, never for what an earlier draw left', () => {
    const typed = drawSchedule(7).steps.filter((s) => s.typed).map((s) => s.typed);
    expect(new Set(typed).size).toBe(typed.length);
  });
});
