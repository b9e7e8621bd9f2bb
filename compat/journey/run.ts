import type { BuildInfo } from '../build-info.js';
import type { PairingRecording } from '../recording.js';
import { loadBuildCodec } from './build-codec.js';
import { DEFAULT_JOURNEY_OPTIONS, type JourneyOptions, type PairingBuild, runPairing } from './run-pairing.js';

export interface JourneyRecordings {
  newNew: PairingRecording;
  oldOld: PairingRecording;
  oldClientNewHost: PairingRecording;
  newClientOldHost: PairingRecording;
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
  const side = async (name: 'old' | 'new'): Promise<PairingBuild> => ({ side: name, build: builds[name], codec: await loadBuildCodec(builds[name].dir) });
  const old = await side('old');
  const current = await side('new');
  const run = async (client: PairingBuild, host: PairingBuild) => {
    opts.onProgress(`journey: ${client.side} client ${client.build.version} × ${host.side} host ${host.build.version}`);
    return runPairing(client, host, options);
  };
  const newNew = await run(current, current);
  const oldOld = await run(old, old);
  const oldClientNewHost = await run(old, current);
  const newClientOldHost = await run(current, old);
  return { newNew, oldOld, oldClientNewHost, newClientOldHost };
}
