import type { BuildInfo } from '../build-info.js';
import { CompatError } from '../errors.js';
import type { PairingRecording } from '../recording.js';
import { PeerProcess } from './peer-process.js';
import { DEFAULT_JOURNEY_OPTIONS, type JourneyOptions, type PairingBuild, runPairing } from './run-pairing.js';

export interface JourneyRecordings {
  newNew: PairingRecording;
  oldOld: PairingRecording;
  oldClientNewHost: PairingRecording;
  newClientOldHost: PairingRecording;
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
    const run = async (client: PairingBuild, host: PairingBuild) => {
      opts.onProgress(`journey: ${client.side} client ${client.build.version} × ${host.side} host ${host.build.version}`);
      return runPairing(client, host, options);
    };
    const newNew = await run(current, current);
    const oldOld = await run(old, old);
    const oldClientNewHost = await run(old, current);
    const newClientOldHost = await run(current, old);
    return { newNew, oldOld, oldClientNewHost, newClientOldHost };
  } finally {
    await Promise.all(codecs.map((c) => c.stop()));
  }
}
