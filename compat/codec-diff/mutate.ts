import { seededRandom } from '../explore/prng.js';

const HEADER_BYTES = 16; // wire v1: a permanent layout, read here without any build's codec

/** A mutated frame and how it was made from its seed, so a finding says what to look at. */
export interface MutatedFrame {
  readonly bytes: Uint8Array;
  readonly seedIndex: number;
  readonly mutation: string;
}

type Random = () => number;
type Mutation = (frame: Uint8Array, random: Random) => { bytes: Uint8Array; name: string } | undefined;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const below = (random: Random, n: number) => Math.floor(random() * n);
const withPayload = (frame: Uint8Array, payload: Uint8Array) => {
  const out = new Uint8Array(HEADER_BYTES + payload.length);
  out.set(frame.subarray(0, HEADER_BYTES));
  out.set(payload, HEADER_BYTES);
  return out;
};

const BOUNDARY_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xc0, 0xed, 0xfe, 0xff];
/** Values at the edges decoders tend to draw lines: types, signs, integer widths, sizes, odd text. */
const EDGE_VALUES: readonly unknown[] = [null, true, false, 0, -1, 1.5, 255, 256, 65535, 65536, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 53), 1e308, '', '0', 'x'.repeat(100), 'x'.repeat(200), 'x'.repeat(300), '\u0000', 'é', '\u{1F600}', [], {}, [1], { a: 1 }];
/** Sizes of grown text around the limits a build might lower: large probes (see largeProbes). */
const GROWN_BYTES = [4 * 1024, 64 * 1024 + 1, 1024 * 1024 + 1];
/** Nesting depths and token counts around the JSON structure limits (nesting 32, 256 Ki tokens). */
const DEPTHS = [8, 31, 32, 33, 64];
/** Token counts around the structure limit: large probes too. */
const TOKEN_COUNTS = [1_000, 70_000, 140_000];
/** Invalid or unusual UTF-8: a lone lead byte, a surrogate, an overlong form, a BOM, a NUL. */
const ODD_UTF8 = [[0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xef, 0xbb, 0xbf], [0x00], [0xf4, 0x90, 0x80, 0x80]];

/**
 * A frame's JSON payload, parsed once per frame: a seed is mutated hundreds
 * of times, and parsing it again each time was half of drawing the frames.
 * The value is shared, so no mutation changes it (setAt copies its path).
 */
export function jsonOf(frame: Uint8Array): unknown {
  if (frame.length <= HEADER_BYTES || frame.length > MAX_JSON_MUTATE_BYTES || frame[HEADER_BYTES] !== 0x7b) return undefined; // '{'
  if (parsedFrames.has(frame)) return parsedFrames.get(frame);
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(frame.subarray(HEADER_BYTES)).toString('utf8'));
  } catch {
    json = undefined;
  }
  parsedFrames.set(frame, json);
  return json;
}

const parsedFrames = new WeakMap<Uint8Array, unknown>();

/** Grown frames are mutated no further as JSON: a mutation copies its value. */
const MAX_JSON_MUTATE_BYTES = 16 * 1024;
const MAX_PATHS = 64;

export const encodeJson = (frame: Uint8Array, value: unknown) => withPayload(frame, Buffer.from(JSON.stringify(value), 'utf8'));

/** Paths to values inside `value`, the root included, breadth first, at most MAX_PATHS of them. */
function paths(value: unknown): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [];
  const queue: Array<[unknown, Array<string | number>]> = [[value, []]];
  for (let next = queue.shift(); next && out.length < MAX_PATHS; next = queue.shift()) {
    const [node, at] = next;
    out.push(at);
    if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) queue.push([v, [...at, Array.isArray(node) ? Number(k) : k]]);
  }
  return out;
}

/**
 * `root` with the value at `path` replaced by `next`, or deleted where
 * `next` is DELETE. Only the objects along the path are copied, in their key
 * order: the rest is shared with `root`, which stays as it was, and
 * JSON.stringify writes the same text a deep copy would.
 */
function withAt(root: unknown, path: ReadonlyArray<string | number>, next: unknown): unknown {
  if (path.length === 0) return next;
  const [key, ...rest] = path;
  const node = root as Record<string | number, unknown> | unknown[];
  const child = rest.length === 0 ? next : withAt((node as Record<string | number, unknown>)[key!], rest, next);
  if (Array.isArray(node)) {
    const copy = node.slice();
    if (child === DELETE) copy.splice(Number(key), 1);
    else copy[Number(key)] = child;
    return copy;
  }
  const copy = { ...node };
  if (child === DELETE) delete copy[key as string];
  else copy[key as string] = child;
  return copy;
}

const DELETE = Symbol('delete');

export const setAt = (root: unknown, path: ReadonlyArray<string | number>, next: unknown): unknown => withAt(root, path, next);
const deleteAt = (root: unknown, path: ReadonlyArray<string | number>): unknown => withAt(root, path, DELETE);

/** The mutations, each with its weight: byte-level ones for every frame, JSON ones where the payload is JSON. */
const MUTATIONS: ReadonlyArray<readonly [number, Mutation]> = [
  [10, (f, r) => { const b = f.slice(); const i = below(r, b.length); b[i]! ^= 1 << below(r, 8); return { bytes: b, name: `flip a bit of byte ${i}` }; }],
  [8, (f, r) => { const b = f.slice(); const i = below(r, b.length); b[i] = pick(r, BOUNDARY_BYTES); return { bytes: b, name: `byte ${i} = 0x${b[i]!.toString(16)}` }; }],
  [4, (f, r) => { const n = below(r, f.length); return { bytes: f.slice(0, n), name: `truncated to ${n} bytes` }; }],
  [4, (f, r) => { const extra = Uint8Array.from({ length: 1 + below(r, 16) }, () => below(r, 256)); const b = new Uint8Array(f.length + extra.length); b.set(f); b.set(extra, f.length); return { bytes: b, name: `${extra.length} random bytes appended` }; }],
  [5, (f, r) => { const b = f.slice(); b[2] = below(r, 256); return { bytes: b, name: `opcode byte = ${b[2]}` }; }],
  [3, (f, r) => { const b = f.slice(); b[3] = 1 + below(r, 255); return { bytes: b, name: `reserved byte = ${b[3]}` }; }],
  [3, (f, r) => { const odd = pick(r, ODD_UTF8); const at = Math.min(f.length, HEADER_BYTES + below(r, Math.max(1, f.length - HEADER_BYTES))); const b = new Uint8Array(f.length + odd.length); b.set(f.subarray(0, at)); b.set(odd, at); b.set(f.subarray(at), at + odd.length); return { bytes: b, name: `bytes ${odd.map((x) => x.toString(16)).join(' ')} inserted at ${at}` }; }],
  [20, (f, r) => { const json = jsonOf(f); if (json === undefined) return undefined; const path = pick(r, paths(json)); const value = pick(r, EDGE_VALUES); return { bytes: encodeJson(f, setAt(json, path, value)), name: `JSON ${path.join('.') || '(root)'} = ${JSON.stringify(value).slice(0, 20)}` }; }],
  [6, (f, r) => { const json = jsonOf(f); if (json === undefined) return undefined; const path = pick(r, paths(json).filter((p) => p.length > 0)); if (!path) return undefined; return { bytes: encodeJson(f, deleteAt(json, path)), name: `JSON ${path.join('.')} deleted` }; }],
  [3, (f, r) => { const json = jsonOf(f); if (!json || typeof json !== 'object') return undefined; const depth = pick(r, DEPTHS); let v: unknown = 1; for (let i = 0; i < depth; i++) v = [v]; return { bytes: encodeJson(f, { ...json, nested: v }), name: `JSON nested ${depth} deep` }; }],
];

/** A frame with its payload grown by `n` bytes: a padding field where the payload is a JSON object, else `n` bytes of text. */
function grown(f: Uint8Array, n: number): Uint8Array {
  const json = jsonOf(f);
  return json && typeof json === 'object' ? encodeJson(f, { ...json, padding: 'x'.repeat(n) }) : withPayload(f, Buffer.alloc(n, 0x78));
}

/**
 * Every grown size and token count, once on the first seed of each opcode the
 * seeds carry. Whether a frame that large is read is the opcode's limit, the
 * same on any seed of it. Drawn at random, they repeated each size on dozens
 * of seeds of one opcode, and most of the bytes both decoders read were theirs.
 */
function largeProbes(seeds: readonly Uint8Array[]): MutatedFrame[] {
  const firstOfOpcode = new Map<number, number>();
  seeds.forEach((s, i) => void (s.length > 2 && !firstOfOpcode.has(s[2]!) && firstOfOpcode.set(s[2]!, i)));
  return [...firstOfOpcode.values()].flatMap((seedIndex) => {
    const f = seeds[seedIndex]!;
    const json = jsonOf(f);
    const tokens = json && typeof json === 'object' ? TOKEN_COUNTS.map((n) => ({ bytes: encodeJson(f, { ...json, many: new Array(n).fill(0) }), seedIndex, mutation: `JSON with ${n} extra tokens` })) : [];
    return [...GROWN_BYTES.map((n) => ({ bytes: grown(f, n), seedIndex, mutation: `payload grown by ${n} bytes` })), ...tokens];
  });
}
const TOTAL_WEIGHT = MUTATIONS.reduce((sum, [w]) => sum + w, 0);

function drawMutation(random: Random): Mutation {
  let x = random() * TOTAL_WEIGHT;
  for (const [weight, mutation] of MUTATIONS) if ((x -= weight) < 0) return mutation;
  return MUTATIONS[0]![1];
}

/** FNV-1a over a frame's bytes: what names a seed's own stream of draws. */
function fingerprint(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

/**
 * `count` frames made from `seeds` (real frames both builds wrote): the large
 * probes, then frames of one to three mutations each, the seeds taking turns.
 * Each seed draws from a stream of its own, named by `seed` and its bytes, so
 * a seed that two runs share gives both the same frames, whatever other seeds
 * either run adds (a journey walked afresh differs in a few frames): a verdict
 * does not come and go with where a run's output was split. The same seeds
 * and seed give the same frames on any machine.
 */
export function* mutatedFrames(seeds: readonly Uint8Array[], count: number, seed: number): Generator<MutatedFrame> {
  const probes = largeProbes(seeds).slice(0, count);
  yield* probes;
  if (!seeds.length) return;
  const streams = seeds.map((s) => seededRandom(Math.imul(seed, 0x9e3779b1) ^ fingerprint(s)));
  for (let made = probes.length, turn = 0; made < count; turn++) {
    const seedIndex = turn % seeds.length;
    const random = streams[seedIndex]!;
    let bytes = seeds[seedIndex]!;
    const names: string[] = [];
    for (let n = 1 + below(random, 3); n > 0; n--) {
      const out = drawMutation(random)(bytes, random);
      if (!out || out.bytes.length === 0) continue;
      bytes = out.bytes;
      names.push(out.name);
    }
    if (!names.length) continue;
    made++;
    yield { bytes, seedIndex, mutation: names.join('; ') };
  }
}
