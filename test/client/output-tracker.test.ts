import { describe, expect, it } from 'vitest';
import { OutputTracker, parseErrorText } from '../../src/client/output-tracker.js';

describe('OutputTracker', () => {
  it('ignores output until a snapshot says where the stream stands', () => {
    const tracker = new OutputTracker();
    expect(tracker.judge(5, 5)).toBe('awaitingSnapshot');
    tracker.snapshotApplied(5);
    expect(tracker.judge(8, 3)).toBe('apply');
    expect(tracker.lastSeq).toBe(8);
  });

  it('calls output already covered stale, and output past the last seq a gap', () => {
    const tracker = new OutputTracker();
    tracker.snapshotApplied(100);
    expect(tracker.judge(100, 10)).toBe('stale');
    expect(tracker.judge(90, 10)).toBe('stale');
    expect(tracker.judge(111, 10)).toBe('gap');
    expect(tracker.judge(105, 10)).toBe('gap'); // overlaps: cannot cut UTF-8 safely, so resync
    expect(tracker.lastSeq).toBe(100);
  });

  it('ignores output after expectSnapshot() until the next snapshot', () => {
    const tracker = new OutputTracker();
    tracker.snapshotApplied(10);
    tracker.expectSnapshot();
    expect(tracker.judge(12, 2)).toBe('awaitingSnapshot');
    tracker.snapshotApplied(12);
    expect(tracker.judge(13, 1)).toBe('apply');
  });
});

describe('parseErrorText', () => {
  it('splits "CODE: message" and keeps text without a code whole', () => {
    expect(parseErrorText('TERMINAL_NOT_FOUND: no terminal x')).toEqual({ code: 'TERMINAL_NOT_FOUND', message: 'no terminal x' });
    expect(parseErrorText('something broke')).toEqual({ code: 'UNKNOWN', message: 'something broke' });
  });
});
