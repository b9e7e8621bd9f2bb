import type { WireManifest } from '../../../src/manifest/manifest-schema.js';
import type { Finding } from '../finding.js';
import type { JourneyRecordingSet } from '../../recording.js';

/** The two builds' manifests, by side. Expectations about each side come from these, never from our own copy. */
export interface SideManifests {
  readonly old: WireManifest;
  readonly new: WireManifest;
}

/** A dynamic rule: a small pure function over the four recordings of one baseline. */
export type DynamicRule = (recordings: JourneyRecordingSet, manifests: SideManifests) => Finding[];
