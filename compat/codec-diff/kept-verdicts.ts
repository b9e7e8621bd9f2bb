import { createHash, hash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import type { FrameVerdict } from '../peer/codec-peer.js';

/** Bytes of a frame's key: its SHA-1. */
const KEY_BYTES = 20;
/** What the file holds; a file of another layout is read as empty. */
const LAYOUT = 1;
/** The file is written again once more than 1 in this many of a run's verdicts were read now. */
const REWRITE_PAST_FRESH_SHARE = 4;

/**
 * The old build's verdicts on the decoder check's frames, kept between gate
 * runs. A verdict depends only on the frame's bytes and on the decoder that
 * read them: the baseline's build (its cache entry, named by its commit) run
 * by this node. The seed frames two runs share give both the same mutations
 * (mutate.ts), so most of a cached run's frames were read by the old decoder
 * the last time. Only the verdicts a run used are kept, so the file stays the
 * size of one draw. Keys are SHA-1 digests of the frames' bytes.
 */
export class KeptVerdicts {
  private readonly used = new Map<string, FrameVerdict>();
  private readNow = 0;
  /** Verdicts taken from the file this run. */
  hits = 0;

  private constructor(
    private readonly file: string,
    private readonly kept: ReadonlyMap<string, FrameVerdict>,
  ) {}

  /** The verdicts kept for this baseline build (`buildName`: its cache entry) under `cacheDir`; none where there is no file or it cannot be read. */
  static open(cacheDir: string, buildName: string): KeptVerdicts {
    const name = createHash('sha256').update(JSON.stringify({ build: buildName, node: process.version, layout: LAYOUT })).digest('hex');
    const file = join(cacheDir, 'verdicts', `${name}.msgpack`);
    return new KeptVerdicts(file, readKept(file));
  }

  /** The frame's SHA-1, one char per byte: the one-shot hash, a third of the CPU of a hash object per frame. */
  static keyOf(frame: Uint8Array): string {
    return hash('sha1', frame, 'binary');
  }

  get(key: string): FrameVerdict | undefined {
    const verdict = this.kept.get(key);
    if (verdict) {
      this.hits++;
      this.used.set(key, verdict);
    }
    return verdict;
  }

  /** A verdict the old decoder gave this run. */
  set(key: string, verdict: FrameVerdict): void {
    this.used.set(key, verdict);
    this.readNow++;
  }

  /**
   * Writes this run's verdicts where more than a quarter were read now (the
   * first run, or a journey whose frames moved): the few a cached run reads
   * come from seed frames that differ in every run, such as where an Output
   * was split, and writing 16 MB for them cost more than it saved. Whole
   * under a temporary name and then renamed, so runs racing on one cache
   * never read half a file. A cache it cannot write only loses the saving.
   */
  save(): void {
    if (this.readNow * REWRITE_PAST_FRESH_SHARE <= this.used.size) return;
    const keys = Buffer.from([...this.used.keys()].join(''), 'latin1');
    const partial = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileSync(partial, encode({ layout: LAYOUT, keys, verdicts: [...this.used.values()] }));
      renameSync(partial, this.file);
    } catch {
      // Read-only or full: the next run reads every frame again; a half-written file is not left behind.
      rmSync(partial, { force: true });
    }
  }
}

function readKept(file: string): Map<string, FrameVerdict> {
  const kept = new Map<string, FrameVerdict>();
  let held: unknown;
  try {
    held = decode(readFileSync(file));
  } catch {
    return kept;
  }
  const { layout, keys, verdicts } = (held ?? {}) as { layout?: unknown; keys?: unknown; verdicts?: unknown };
  if (layout !== LAYOUT || !(keys instanceof Uint8Array) || !Array.isArray(verdicts) || keys.length !== verdicts.length * KEY_BYTES) return kept;
  const text = Buffer.from(keys.buffer, keys.byteOffset, keys.byteLength).toString('latin1');
  verdicts.forEach((verdict: FrameVerdict, i) => kept.set(text.slice(i * KEY_BYTES, (i + 1) * KEY_BYTES), verdict));
  return kept;
}
