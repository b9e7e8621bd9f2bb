import type { BuildInfo } from '../build-info.js';
import { CompatError } from '../errors.js';
import type { PairingRecording } from '../recording.js';
import { PeerProcess } from './peer-process.js';
import { DEFAULT_JOURNEY_OPTIONS, type JourneyOptions, type JourneyPlan, type PairingBuild, PTY_PLAN, runPairing, SCRIPT_PLAN } from './run-pairing.js';

export interface JourneyRecordings {
  newNew: PairingRecording;
  oldOld: PairingRecording;
  oldClientNewHost: PairingRecording;
  newClientOldHost: PairingRecording;
  /** The second pass, both skews against a real shell in a PTY: judged on outcomes only. */
  pty: { oldClientNewHost: PairingRecording; newClientOldHost: PairingRecording };
}

async function startCodec(side: 'old' | 'new', build: BuildInfo): Promise<PeerProcess> {
  try {
    return await PeerProcess.start({ buildDir: build.dir, role: 'codec', label: `${side} codec ${build.version}` });
  } catch (error) {
    throw new CompatError('PEER_UNAVAILABLE', (error as Error).message);
  }
}

/**
 * Runs the journey for the four pairings: the two same-version references
 * first, then both skews. One at a time: each pairing is two processes and a
 * proxy, and frames are compared across runs, so they must not compete.
 */
export async function runJourneyPairings(
  builds: { old: BuildInfo; new: BuildInfo },
  opts: { onProgress: (msg: string) => void; journey?: Partial<JourneyOptions> },
): Promise<JourneyRecordings> {
  const options = { ...DEFAULT_JOURNEY_OPTIONS, ...opts.journey };
  const codecs: PeerProcess[] = [];
  try {
    const side = async (name: 'old' | 'new'): Promise<PairingBuild> => {
      const codec = await startCodec(name, builds[name]);
      codecs.push(codec);
      return { side: name, build: builds[name], codec };
    };
    const old = await side('old');
    const current = await side('new');
    const run = async (client: PairingBuild, host: PairingBuild, plan: JourneyPlan = SCRIPT_PLAN) => {
      opts.onProgress(`journey${plan === PTY_PLAN ? ' (pty)' : ''}: ${client.side} client ${client.build.version} × ${host.side} host ${host.build.version}`);
      return runPairing(client, host, options, plan);
    };
    const newNew = await run(current, current);
    const oldOld = await run(old, old);
    const oldClientNewHost = await run(old, current);
    const newClientOldHost = await run(current, old);
    const pty = { oldClientNewHost: await run(old, current, PTY_PLAN), newClientOldHost: await run(current, old, PTY_PLAN) };
    return { newNew, oldOld, oldClientNewHost, newClientOldHost, pty };
  } finally {
    await Promise.all(codecs.map((c) => c.stop()));
  }
}
