import { describe, expect, it } from 'vitest';
import type { Observation } from '../../compat/journey/observed-state.js';
import { HostInputLog } from '../../compat/journey/observed-state.js';
import { progressMark, STALL_WINDOW, StepStalled, stallWindowsFrom, waitForBarrier } from '../../compat/journey/stall-window.js';
import type { PairingRecording, StepResult } from '../../compat/recording.js';

const recordingOf = (steps: StepResult[]) => ({ steps }) as unknown as PairingRecording;
const ok = (name: string, durationMs: number): StepResult => ({ name, status: 'ok', durationMs }) as StepResult;

function observationWith(wireCount: number, screen = ''): Observation {
  const client = { screen } as Observation['client'];
  return { client, host: { screen, inputLog: '', pausedStreams: 0, errors: [] }, wire: [], wireCount, probeEnds: [], probeFloodAnswered: 0 };
}

describe('stall windows from the same-version references', () => {
  it('gives each step the factor times its slowest reference, within the floor and the step deadline', () => {
    const windows = stallWindowsFrom(
      [recordingOf([ok('subscribe', 100), ok('burst', 2_000), ok('drop', 9_000)]), recordingOf([ok('subscribe', 200), ok('burst', 1_500), ok('drop', 2_500)])],
      15_000,
      2_000,
    );
    expect(windows).toEqual([STALL_WINDOW.floorMs, STALL_WINDOW.factor * 2_000, 15_000]);
  });

  it("never gives a step less than the client's pong deadline and a second: a silent drop takes that deadline to notice", () => {
    expect(stallWindowsFrom([recordingOf([ok('drop', 100), ok('burst', 2_500)])], 15_000, 6_000)).toEqual([7_000, 7_500]);
  });

  it('knows no window for a step a reference did not finish, so that step keeps the whole deadline', () => {
    const stalled = { name: 'title', status: 'stalled', durationMs: 15_000 } as StepResult;
    expect(stallWindowsFrom([recordingOf([ok('title', 10)]), recordingOf([stalled])], 15_000, 2_000)).toEqual([undefined]);
  });
});

describe('a barrier with a stall window', () => {
  it('stalls once nothing has moved for the window, long before the deadline', async () => {
    const started = Date.now();
    const waiting = waitForBarrier(async () => observationWith(1), () => 'a title', { deadlineMs: 60_000, stallWindowMs: 100, pollMs: 5 });
    await expect(waiting).rejects.toBeInstanceOf(StepStalled);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('never cuts short a step that keeps moving: each new frame restarts the window', async () => {
    let frames = 0;
    // Done on the 60th poll; every poll sees one more frame, so nothing is quiet for the 100 ms window, however slow the polls are.
    const seen = await waitForBarrier(async () => observationWith(++frames), (o) => (o.wireCount >= 60 ? undefined : 'more output'), { deadlineMs: 60_000, stallWindowMs: 100, pollMs: 5 });
    expect(seen.wireCount).toBe(60);
  });
});

describe('progress for the stall window', () => {
  it("counts the probe's flood answers and ends as progress, though they cross the wire unrecorded", () => {
    const still = observationWith(7);
    expect(progressMark({ ...still, probeFloodAnswered: 40 })).not.toBe(progressMark(still));
    expect(progressMark({ ...still, probeEnds: [{ step: 'limitsClosed', connection: 5, outcome: 'stayedOpen', answeredFrames: 40 }] })).not.toBe(progressMark(still));
  });

  it('counts input reaching the terminal as progress, by how much reached it', () => {
    const still = observationWith(7);
    const typed = { ...still, host: { ...still.host, inputLog: 'ls\r' } };
    expect(progressMark(typed)).not.toBe(progressMark(still));
    expect(progressMark({ ...typed, host: { ...typed.host, inputLog: 'ls\rx' } })).not.toBe(progressMark(typed));
  });
});

describe("the host's input log, as answers add to it", () => {
  const answer = (log: { inputLog: string } | { inputLogFrom: number; inputLogAdded: string }) => ({ screen: '', pausedStreams: 0, errors: [], ...log });

  it('joins what each answer added to what this side held, and asks from there', () => {
    const log = new HostInputLog();
    expect(log.args).toEqual({ inputLogFrom: 0 });
    expect(log.observed(answer({ inputLogFrom: 0, inputLogAdded: 'ls\r' })).inputLog).toBe('ls\r');
    expect(log.args).toEqual({ inputLogFrom: 3 });
    expect(log.observed(answer({ inputLogFrom: 3, inputLogAdded: 'pwd\r' })).inputLog).toBe('ls\rpwd\r');
    expect(log.observed(answer({ inputLogFrom: 7, inputLogAdded: '' })).inputLog).toBe('ls\rpwd\r');
  });

  it('reads an answer asked before the last one came back, and a whole log from a peer that sends it whole', () => {
    const log = new HostInputLog();
    log.observed(answer({ inputLogFrom: 0, inputLogAdded: 'ab' }));
    // Asked from 0 while the first answer was on its way, answered after more came.
    expect(log.observed(answer({ inputLogFrom: 0, inputLogAdded: 'abcd' })).inputLog).toBe('abcd');
    expect(log.observed(answer({ inputLogFrom: 2, inputLogAdded: 'c' })).inputLog, 'an older answer is read as it was').toBe('abc');
    expect(log.args, 'and does not shorten what this side holds').toEqual({ inputLogFrom: 4 });
    expect(log.observed(answer({ inputLog: 'abcdef' })).inputLog).toBe('abcdef');
    expect(log.args).toEqual({ inputLogFrom: 6 });
  });
});
