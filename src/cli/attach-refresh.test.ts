import { describe, expect, it } from 'vitest';
import { SnapshotRefresher } from './attach-refresh.js';

describe('SnapshotRefresher: one snapshot request outstanding at a time', () => {
  it('turns a burst of asks into one request, and asks made while it is outstanding into one more once it is answered', () => {
    const sent: string[] = [];
    const refresher = new SnapshotRefresher(() => (sent.push(`r${sent.length + 1}`), sent.at(-1)));
    for (let i = 0; i < 50; i++) refresher.refresh(); // a script toggling the alternate screen
    expect(sent).toEqual(['r1']);
    refresher.snapshotArrived(); // whichever request it answers (a congested host answers several with one, under the latest id)
    expect(sent).toEqual(['r1', 'r2']);
    refresher.snapshotArrived();
    expect(sent).toEqual(['r1', 'r2']);
    refresher.refresh();
    expect(sent).toEqual(['r1', 'r2', 'r3']);
    refresher.snapshotArrived();
    refresher.refresh();
    expect(sent).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('forgets a request a lost link may never answer once the stream subscribes again', () => {
    const sent: string[] = [];
    const refresher = new SnapshotRefresher(() => (sent.push(`r${sent.length + 1}`), sent.at(-1)));
    refresher.refresh();
    refresher.refresh();
    refresher.subscribed();
    refresher.refresh();
    expect(sent).toEqual(['r1', 'r2']);
  });
});
