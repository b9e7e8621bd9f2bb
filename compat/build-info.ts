import type { WireManifest } from '../src/manifest/manifest-schema.js';

/** One built checkout the gate can run: its own dist, its own dependencies. */
export interface BuildInfo {
  /** Absolute path of the project root holding bin/termwire.js and dist/. */
  readonly dir: string;
  /** package.json version of that build. */
  readonly version: string;
  /** The commit it was built from; for the working tree, HEAD plus uncommitted changes. */
  readonly commit: string;
  /** What the build itself reported via `termwire manifest`. */
  readonly manifest: WireManifest;
}
