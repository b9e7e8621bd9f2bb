import type { PairingRecording } from '../recording.js';
import type { Finding } from '../rules/finding.js';
import { outcomeAndRefusalFindings, passOutcomeRules, type PassRecordings } from '../rules/dynamic/pty-outcomes.js';
import type { SomePairings } from '../rules/dynamic/journey-outcome-rules.js';
import { JOURNEY_PASSES, type JourneyPass } from './disturbances.js';
import type { JourneyRecordings } from './journey-recordings.js';
import { type JourneyPlan, LIFETIME_PLAN, type PairingBuild, PTY_PLAN, RESTART_PLAN, STREAM_PLAN, takesHostArg } from './run-pairing.js';

/** A pairing of a pass: which build's client against which build's host, and for the restart pass, which build the host comes back as. */
export interface PassPairing {
  readonly client: PairingBuild;
  readonly host: PairingBuild;
  readonly hostAs?: PairingBuild;
  readonly key: 'oldClientNewHost' | 'newClientOldHost' | 'newNew';
}

/**
 * One journey pass beside the script: everything the runner, the judge, the
 * confirming walk and the report need to know of it. The runner loops over
 * PASSES and never names a pass; adding one is a record here and its steps.
 */
export interface JourneyPassSpec {
  readonly name: Exclude<JourneyPass, 'script'>;
  /** How progress lines and its findings' subjects name it: `byte stream`. */
  readonly label: string;
  readonly plan: JourneyPlan;
  /** Why the two builds cannot walk it (what a build's peers lack), or undefined when both can. */
  readonly unwalkable: (old: PairingBuild, current: PairingBuild) => string | undefined;
  /** The pairings it walks for these builds. */
  readonly pairings: (old: PairingBuild, current: PairingBuild) => readonly PassPairing[];
  /** What its findings' messages start with: `over the byte stream`. */
  readonly says: string;
  /** Its outcome rules, over the pairings it walked; default outcomeFindings. */
  readonly rules?: (recordings: SomePairings) => Finding[];
  /**
   * Old × old, walked only when the old client failed against the new host, to
   * tell the release's own failing from the new host's; absent for a pass
   * that does not need it.
   */
  readonly oldOwn?: (old: PairingBuild) => PassPairing | undefined;
}

/** Whether a build's peers speak the byte stream (its codec peer says so; builds before it speak WebSocket only). */
const speaksStream = (b: PairingBuild) => b.codec.hello.transports?.includes('stream') ?? false;

/** Whether a build's host peer takes a lifetime for detached terminals (PEER_HOST_ARGS); earlier builds keep the default hour. */
const takesLifetime = (b: PairingBuild) => takesHostArg(b, 'detachedIdleMs');

const skews = (old: PairingBuild, current: PairingBuild): PassPairing[] => [
  { client: old, host: current, key: 'oldClientNewHost' },
  { client: current, host: old, key: 'newClientOldHost' },
  { client: current, host: current, key: 'newNew' },
];

export const PASSES: readonly JourneyPassSpec[] = [
  {
    name: 'pty',
    label: 'pty',
    plan: PTY_PLAN,
    unwalkable: () => undefined,
    pairings: (old, current) => skews(old, current).slice(0, 2),
    says: 'real PTY pass',
  },
  {
    name: 'restart',
    label: 'host restart',
    plan: RESTART_PLAN,
    unwalkable: () => undefined,
    // The host stops under a live client and starts as the other build (old → new under an old client, new → old under a new one), and new → new.
    pairings: (old, current) => [
      { client: old, host: old, hostAs: current, key: 'oldClientNewHost' },
      { client: current, host: current, hostAs: old, key: 'newClientOldHost' },
      { client: current, host: current, hostAs: current, key: 'newNew' },
    ],
    says: 'host restarted under a live client',
    oldOwn: (old) => ({ client: old, host: old, hostAs: old, key: 'oldClientNewHost' }),
  },
  {
    name: 'stream',
    label: 'byte stream',
    plan: STREAM_PLAN,
    unwalkable: (old, current) => (speaksStream(old) && speaksStream(current) ? undefined : `the peers of ${speaksStream(old) ? 'the working tree' : 'the release'} speak WebSocket only`),
    pairings: skews,
    says: 'over the byte stream',
    rules: outcomeAndRefusalFindings,
    oldOwn: (old) => ({ client: old, host: old, key: 'oldClientNewHost' }),
  },
  {
    name: 'lifetime',
    label: 'detached lifetime',
    plan: LIFETIME_PLAN,
    unwalkable: (old, current) => (takesLifetime(old) || takesLifetime(current) ? undefined : "neither build's host peer takes a lifetime"),
    // Only pairings whose host takes a lifetime: another host would keep a detached terminal for its default hour.
    pairings: (old, current) => skews(old, current).filter((p) => takesLifetime(p.host)),
    says: "a client left its terminal and came back within the host's lifetime for detached terminals",
    oldOwn: (old) => (takesLifetime(old) ? { client: old, host: old, key: 'oldClientNewHost' } : undefined),
  },
];

/** A pass's findings over what it recorded (old × old among them when it was walked). */
export const judgePass = (spec: JourneyPassSpec, recordings: PassRecordings): Finding[] => passOutcomeRules(spec.label, spec.says, spec.rules)(recordings);

export const passSpec = (name: Exclude<JourneyPass, 'script'>): JourneyPassSpec => PASSES.find((p) => p.name === name)!;

/** The recordings a walk holds for each pass beside the script (absent for a pass not walked). */
export const passRecordings = (r: JourneyRecordings, pass: Exclude<JourneyPass, 'script'>): PassRecordings | undefined => r[pass];

/** `byte stream Metadata` is `Metadata` on the wire: what a finding of any pass is about, whichever pass saw it. */
export function wireSubject(subject: string): string {
  const pass = PASSES.find((p) => subject.startsWith(`${p.label} `));
  return pass ? subject.slice(pass.label.length + 1) : subject;
}

export { JOURNEY_PASSES };
