import { describe, expect, it } from 'vitest';
import type { JourneyPass } from '../../compat/journey/disturbances.js';
import type { JourneyRecordings } from '../../compat/journey/journey-recordings.js';
import { earlierRecording, passesToWalkAgain } from '../../compat/journey/walk-again.js';
import type { Finding } from '../../compat/rules/finding.js';
import { recording } from './helpers/recordings.js';

/** A walk of every pass, each pairing its own recording, so a test can tell which one came back. */
function walkOf(): JourneyRecordings {
  const skews = () => ({ oldClientNewHost: recording('old', 'new'), newClientOldHost: recording('new', 'old'), newNew: recording('new', 'new') });
  return {
    ...skews(),
    oldOld: recording('old', 'old'),
    pty: { oldClientNewHost: recording('old', 'new'), newClientOldHost: recording('new', 'old') },
    restart: skews(),
    stream: skews(),
    lifetime: { oldClientNewHost: recording('old', 'new'), newNew: recording('new', 'new') },
    skippedSteps: new Map(),
    undrivable: [],
  };
}

const finding = { ruleId: 'JOURNEY_STALLED' } as Finding;
const none = (): Record<JourneyPass, Finding[]> => ({ script: [], pty: [], restart: [], stream: [], lifetime: [] });

describe('which passes a confirming walk walks again', () => {
  it('none after calm, clean walks; each pass where a walk found something or was disturbed', () => {
    const [first, second] = [walkOf(), walkOf()];
    expect([...passesToWalkAgain([first], none)]).toEqual([]);
    const findings = new Map<JourneyRecordings, Partial<Record<JourneyPass, Finding[]>>>([[first, { restart: [finding] }], [second, { pty: [finding] }]]);
    const byPass = (r: JourneyRecordings) => ({ ...none(), ...findings.get(r) });
    // The second walk found something in a pass the first did not: the third walks both.
    expect([...passesToWalkAgain([first, second], byPass)].sort()).toEqual(['pty', 'restart']);
    // A client that gave up a link the proxy kept up disturbs the byte-stream pass: its silence is no verdict.
    const disturbed = walkOf();
    disturbed.stream = { ...disturbed.stream!, newNew: { ...disturbed.stream!.newNew, unplannedEnds: [{ step: 'drop', connection: 2, client: 'primary' }] } };
    expect([...passesToWalkAgain([disturbed], none)]).toEqual(['stream']);
  });
});

describe('the earlier recording a carried pass stands on', () => {
  it('is the same pairing of the same pass: a restart by its client and the host it restarts as', () => {
    const walk = walkOf();
    expect(earlierRecording(walk, 'script', 'old', 'old')).toBe(walk.oldOld);
    expect(earlierRecording(walk, 'script', 'new', 'old')).toBe(walk.newClientOldHost);
    expect(earlierRecording(walk, 'pty', 'old', 'new')).toBe(walk.pty!.oldClientNewHost);
    expect(earlierRecording(walk, 'restart', 'old', 'old', 'new')).toBe(walk.restart!.oldClientNewHost);
    expect(earlierRecording(walk, 'restart', 'new', 'new', 'old')).toBe(walk.restart!.newClientOldHost);
    expect(earlierRecording(walk, 'stream', 'new', 'new')).toBe(walk.stream!.newNew);
    expect(earlierRecording(walk, 'lifetime', 'old', 'new')).toBe(walk.lifetime!.oldClientNewHost);
  });

  it('is absent where the earlier walk did not walk that pairing, so it is walked', () => {
    const walk = walkOf();
    expect(earlierRecording(walk, 'restart', 'old', 'old', 'old')).toBeUndefined();
    expect(earlierRecording(walk, 'lifetime', 'new', 'old')).toBeUndefined();
    expect(earlierRecording(walk, 'pty', 'new', 'new')).toBeUndefined();
    expect(earlierRecording({ ...walk, stream: undefined }, 'stream', 'old', 'new')).toBeUndefined();
  });
});
