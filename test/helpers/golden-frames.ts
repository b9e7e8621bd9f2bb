import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOLDEN_FRAMES_DIR, type GoldenFrameFile } from '../../scripts/golden-frames.js';

export interface LoadedGoldenFrame extends GoldenFrameFile {
  readonly file: string;
  readonly bytes: Uint8Array;
}

/** The committed golden frames (fixtures/frames/*.json), sorted by file name. */
export function loadGoldenFrames(): LoadedGoldenFrame[] {
  return readdirSync(GOLDEN_FRAMES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => {
      const parsed = JSON.parse(readFileSync(join(GOLDEN_FRAMES_DIR, file), 'utf8')) as GoldenFrameFile;
      return { ...parsed, file, bytes: Uint8Array.from(Buffer.from(parsed.hex, 'hex')) };
    });
}
