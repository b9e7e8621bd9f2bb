import { describe, expect, it } from 'vitest';
import type { JourneyPass } from '../../compat/journey/disturbances.js';
import type { JourneyRecordings } from '../../compat/journey/journey-recordings.js';
import { pairingsOfWalk } from '../../compat/journey/disturbances.js';
import { carrying, confirmingJourney, earlierRecording, PATIENT_CLIENTS, passesToWalkAgain, scriptSkewsToCarry } from '../../compat/journey/walk-again.js';
import type { PairingRecording } from '../../compat/recording.js';
import { PAIRING_LABELS } from '../../compat/rules/finding.js';
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

describe("a confirming walk's clients", () => {
  it('keep their pong deadline after calm walks, and wait longer once a walk was disturbed, under the host deadline', () => {
    expect(confirmingJourney([pairingsOfWalk(walkOf()), pairingsOfWalk(walkOf())])).toEqual({});
    const disturbed = walkOf();
    disturbed.restart = { ...disturbed.restart!, oldClientNewHost: { ...disturbed.restart!.oldClientNewHost, unplannedEnds: [{ step: 'drop', connection: 1, client: 'primary' }] } };
    expect(confirmingJourney([pairingsOfWalk(walkOf()), pairingsOfWalk(disturbed)])).toEqual(PATIENT_CLIENTS);
    expect(PATIENT_CLIENTS.clientPongDeadlineMs).toBeLessThan(10_000);
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

describe('the skews of the script a confirming walk carries', () => {
  const inDirection = (direction: Finding['direction']) => ({ ...finding, direction }) as Finding;

  it('are those no walk found anything in or saw disturbed; the references are never carried', () => {
    const [first, second] = [walkOf(), walkOf()];
    expect([...scriptSkewsToCarry([first], () => [])].sort()).toEqual(['newClientOldHost', 'oldClientNewHost']);
    // A finding only the second walk made in old client × new host: the third walks that skew again.
    const found = new Map([[second, [inDirection(PAIRING_LABELS.oldClientNewHost)]]]);
    expect([...scriptSkewsToCarry([first, second], (r) => found.get(r) ?? [])]).toEqual(['newClientOldHost']);
    // A finding judged on a reference condemns no skew: both stand, and both references are walked afresh.
    expect([...scriptSkewsToCarry([first], () => [inDirection(PAIRING_LABELS.newNew)])].sort()).toEqual(['newClientOldHost', 'oldClientNewHost']);
    // A skew a busy machine disturbed has no verdict to carry.
    const disturbed = walkOf();
    disturbed.newClientOldHost = { ...disturbed.newClientOldHost, unplannedEnds: [{ step: 'drop', connection: 2, client: 'primary' }] };
    expect([...scriptSkewsToCarry([disturbed], () => [])]).toEqual(['oldClientNewHost']);
    // With the host's code the release's, old client × new host is old × old: it is walked afresh with the references.
    expect([...scriptSkewsToCarry([{ ...walkOf(), sameCode: "the working tree's host runs the release's code" }], () => [])]).toEqual([]);
  });

  it('stand unwalked while the rest of the script is walked again', async () => {
    const walk = walkOf();
    const side = (s: 'old' | 'new') => ({ side: s, build: { version: s } });
    const walked: string[] = [];
    const plan = carrying((what, client, host, run) => ({ walk: run, recording: () => (walked.push(`${what} ${client.side}×${host.side}`), run()) }), { from: walk, passes: new Set(), scriptSkews: new Set(['newClientOldHost']) });
    const fresh = (): Promise<PairingRecording> => Promise.resolve(recording('old', 'new'));
    const carried = plan('script', side('new'), side('old'), fresh);
    expect(carried.walk).toBeUndefined();
    expect(await carried.recording()).toBe(walk.newClientOldHost);
    for (const [client, host] of [['old', 'old'], ['new', 'new'], ['old', 'new']] as const) expect(plan('script', side(client), side(host), fresh).walk).toBeDefined();
    // Only the script's skews: the same pairing of a pass walked again is walked.
    expect(plan('stream', side('new'), side('old'), fresh).walk).toBeDefined();
    expect(walked).toEqual([]);
  });
});
