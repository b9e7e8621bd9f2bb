import { describe, expect, it } from 'vitest';
import { SNAPSHOT_SHARE_WINDOW_MS, SnapshotShare } from './snapshot-share.js';

describe('SnapshotShare', () => {
  const churners = Array.from({ length: 12 }, (_, i) => ({ churner: i }));

  it('gives each connection that spent lately an even share of the total, counting the one that asks', () => {
    let now = 0;
    const share = new SnapshotShare(64, () => now);
    const newcomer = { newcomer: true };
    expect(share.share(newcomer)).toBe(64);
    for (const c of churners.slice(0, 3)) share.spent(c);
    expect(share.share(churners[0]!)).toBe(64 / 3);
    expect(share.share(newcomer)).toBe(16);
    now += 1;
    for (const c of churners) share.spent(c);
    expect(share.share(churners[5]!)).toBe(64 / 12);
  });

  it('stops counting a connection that has not spent for SNAPSHOT_SHARE_WINDOW_MS, or that is gone', () => {
    let now = 0;
    const share = new SnapshotShare(60, () => now);
    const [a, b, c] = churners;
    share.spent(a!);
    now += SNAPSHOT_SHARE_WINDOW_MS / 2;
    share.spent(b!);
    share.spent(c!);
    expect(share.share(c!)).toBe(20);
    now += SNAPSHOT_SHARE_WINDOW_MS / 2 + 1;
    expect(share.share(c!)).toBe(30);
    share.forget(b!);
    expect(share.share(c!)).toBe(60);
  });
});
