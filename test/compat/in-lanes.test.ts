import { describe, expect, it } from 'vitest';
import { inLanes } from '../../compat/journey/run.js';

describe('pairings in lanes', () => {
  it('keeps task order in the results and never runs more than the lanes at once', async () => {
    let running = 0;
    let most = 0;
    const task = (v: number) => async () => {
      running++;
      most = Math.max(most, running);
      await Promise.resolve();
      running--;
      return v;
    };
    expect(await inLanes(2, [task(1), task(2), task(3), task(4), task(5)])).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('starts nothing after a failure, and throws only once the running task has finished', async () => {
    const started: number[] = [];
    let releaseSecond!: () => void;
    let secondFinished = false;
    const second = new Promise<void>((resolve) => (releaseSecond = resolve));
    const run = inLanes(2, [
      async () => (started.push(1), Promise.reject(new Error('pairing 1 broke'))),
      async () => (started.push(2), await second, (secondFinished = true), 2),
      async () => (started.push(3), 3),
    ]);
    let settled = false;
    void run.catch(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    releaseSecond();
    await expect(run).rejects.toThrow('pairing 1 broke');
    expect(secondFinished).toBe(true);
    expect(started).toEqual([1, 2]);
  });
});
