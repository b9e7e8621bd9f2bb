import { describe, expect, it } from 'vitest';
import { MOVES } from '../../compat/explore/moves.js';
import { describeSchedule, drawSchedule, EXPLORE_MOVES, scheduleOf, WITHOUT_MOVE } from '../../compat/explore/schedule.js';
import { CAPABILITY_NAMES } from '../../src/capabilities/registry.js';
import { declaredBehaviour } from '../../compat/coverage/behaviour-table.js';

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
    expect([...seen].sort()).toEqual([...MOVES.map((m) => m.name), 'exit', ...CAPABILITY_NAMES.map((c) => `${WITHOUT_MOVE}${c}`)].sort());
    expect(schedules.size).toBeGreaterThan(290);
  });

  it('every schedule subscribes first and ends on the unsubscribe, with its move count in range', () => {
    for (let seed = 0; seed < 200; seed++) {
      const s = drawSchedule(seed);
      const names = s.steps.map((x) => x.name);
      expect(names.slice(0, 2), `seed ${seed}`).toEqual(['subscribe', 'initialSnapshot']);
      expect(names.slice(-2), `seed ${seed}`).toEqual(['unsubscribe', 'inputAfterUnsubscribe']);
      const moves = s.moves.filter((m) => m !== 'exit' && !m.startsWith(WITHOUT_MOVE)).length;
      expect(moves, `seed ${seed}`).toBeGreaterThanOrEqual(EXPLORE_MOVES.min);
      expect(moves, `seed ${seed}`).toBeLessThanOrEqual(EXPLORE_MOVES.max);
      // A drop is always followed by keys typed while down, then its resubscribe: the proxy holds the reconnect until then.
      names.forEach((n, i) => n === 'drop' && expect(names.slice(i + 1, i + 3), `seed ${seed}`).toEqual(['typedWhileDown', 'resubscribe']));
      // A capability is switched off from the start or not at all.
      s.moves.forEach((m, i) => m.startsWith(WITHOUT_MOVE) && expect(i, `seed ${seed}`).toBe(0));
      expect(s.capabilityOff, `seed ${seed}`).toBe(s.moves[0]?.startsWith(WITHOUT_MOVE) ? s.moves[0].slice(WITHOUT_MOVE.length) : undefined);
    }
  });

  it('a step drawn twice waits for its own output, never for what an earlier draw left', () => {
    const typed = drawSchedule(7).steps.filter((s) => s.typed).map((s) => s.typed);
    expect(new Set(typed).size).toBe(typed.length);
  });

  it("takes a capability switched off only as the first move, the way a replay file lists it", () => {
    expect(scheduleOf(1, ['without:ackOutput', 'burst']).capabilityOff).toBe('ackOutput');
    expect(() => scheduleOf(1, ['burst', 'without:ackOutput'])).toThrow(/can only come first/);
  });
});

describe('steering by behaviour', () => {
  const reachOf = (moves: readonly string[]) => new Set(moves.flatMap((m) => MOVES.find((x) => x.name === m)?.reaches ?? []));
  const every = (n: number) => Array.from({ length: n }, (_, i) => 1000 + i);

  it('names in each move only behaviour the table declares', () => {
    const declared = new Set(declaredBehaviour().map((b) => b.key));
    for (const m of MOVES) for (const r of m.reaches) expect(declared.has(r), `${m.name} reaches ${r}`).toBe(true);
  });

  it('spreads a schedule over more behaviour than unsteered draws of the same seeds', () => {
    const mean = (steered: boolean) => every(400).reduce((sum, seed) => sum + reachOf(drawSchedule(seed, steered).moves).size, 0) / 400;
    // Seeds 1000-1399; a steered draw spreads wider on average (about 2 items more per schedule).
    expect(mean(true)).toBeGreaterThan(mean(false) + 1);
  });
});

describe('a second client never attaches inside the resize interval', () => {
  it('no draw puts a move that attaches it, or the exit, right after a move that resizes', () => {
    for (let seed = 0; seed < 3000; seed++) {
      const moves = drawSchedule(seed).moves;
      moves.forEach((m, i) => i > 0 && ['resize', 'claimViewport'].includes(moves[i - 1]!) && expect(['secondClient', 'claimViewport', 'exit'], `seed ${seed}: ${moves.join(' → ')}`).not.toContain(m));
    }
  });
});
