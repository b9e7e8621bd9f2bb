import type { BuildInfo } from '../build-info.js';
import type { ProgressStep } from '../progress.js';
import type { JourneyRecordingSet } from '../recording.js';
import { withPairingBuilds } from '../journey/run.js';
import type { DecoderCheckOptions } from './options.js';
import { compareDecoders, type DecoderComparison, seedFrames } from './compare-decoders.js';
import type { KeptVerdicts } from './kept-verdicts.js';

/** Both builds' decoders, each in its own process, fed mutations of the frames the journey's references carried. */
export async function runDecoderCheck(builds: { old: BuildInfo; new: BuildInfo }, recordings: Pick<JourneyRecordingSet, 'oldOld' | 'newNew'>, opts: DecoderCheckOptions, judgedStatically: ReadonlySet<string>, step: ProgressStep, oldKept?: KeptVerdicts): Promise<DecoderComparison> {
  const seeds = seedFrames([...recordings.oldOld.frames, ...recordings.newNew.frames].map((f) => f.rawHex));
  let shown = 0;
  // A CI log gets every update as a line: one per quarter is enough.
  const onProgress = (done: number) => {
    if (done - shown < opts.frames / 4) return;
    shown = done;
    step.update(`${done} of ${opts.frames} mutated frames read by both decoders`);
  };
  return withPairingBuilds(builds, (old, current) => compareDecoders({ old: old.codec, new: current.codec }, seeds, { old: builds.old.manifest, new: builds.new.manifest }, { count: opts.frames, seed: opts.seed, judgedStatically, onProgress, ...(oldKept ? { oldKept } : {}) }), 'decoders');
}
