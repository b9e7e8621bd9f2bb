import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import type { Peer } from '../journey/peer-process.js';
import { DECODER_THREW, type FrameVerdict } from '../peer/codec-peer.js';
import { newWriterToOldReader, oldWriterToNewReader, type Finding } from '../rules/finding.js';
import { type BoundedSchema, boundaryProbes, branchFor } from './boundary-probes.js';
import { decodersDisagree } from './decoders-disagree.js';
import { KeptVerdicts } from './kept-verdicts.js';
import { type MutatedFrame, mutatedFrames } from './mutate.js';

export interface DecoderComparison {
  /** How many mutated frames both decoders read. */
  readonly frames: number;
  /** Frames drawn again, byte for byte, after both decoders had read them: counted in `frames`, not read twice. */
  readonly repeated: number;
  /** Frames whose old verdict was kept from an earlier run (KeptVerdicts), not read by the old decoder again. */
  readonly oldKept: number;
  readonly seed: number;
  /** Frames skipped because their opcode's change is judged elsewhere (present in one build only, or named by a static finding). */
  readonly declared: number;
  /** Frames one build's peer refused as a malformed event where the other's peer does not check events (an older build). */
  readonly eventsUncompared: number;
  readonly findings: Finding[];
}

/** Seed frames larger than this are left out: every mutation copies its frame. */
const MAX_SEED_BYTES = 4096;
/** A batch stays well under the control channel's 64 MiB message limit. */
const BATCH_BYTES = 8 * 1024 * 1024;
const BATCH_FRAMES = 5_000;
const EXAMPLE_HEX_BYTES = 96;

/** The seeds: distinct frames both builds wrote in the journey, in a stable order. */
export function seedFrames(rawHex: Iterable<string>): Uint8Array[] {
  const distinct = [...new Set(rawHex)].filter((hex) => hex.length / 2 <= MAX_SEED_BYTES).sort();
  return distinct.map((hex) => new Uint8Array(Buffer.from(hex, 'hex')));
}

/** JSON with sorted keys: two builds may build the same object in another key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The part of a decoded value both builds' schemas declare: a field one build
 * added is stripped by the other's decoder (unknown keys are dropped), which
 * is the declared change, not a disagreement.
 */
function shared(value: unknown, schemaA: BoundedSchema | undefined, schemaB: BoundedSchema | undefined): unknown {
  if (!isObject(value)) return value;
  const [a, b] = [branchFor(schemaA, value), branchFor(schemaB, value)];
  if (!a?.properties || !b?.properties) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k in a.properties! && k in b.properties!).map(([k, v]) => [k, shared(v, a.properties![k], b.properties![k])]));
}

/**
 * Whether `value` carries a field only one build declares. The other build
 * never writes that field (it does not know it), so how strictly the declaring
 * build reads it is that build's own schema, not a skew between them.
 */
function carriesOneSidedField(value: unknown, schemaA: BoundedSchema | undefined, schemaB: BoundedSchema | undefined): boolean {
  if (!isObject(value)) return false;
  const [a, b] = [branchFor(schemaA, value), branchFor(schemaB, value)];
  if (!a?.properties || !b?.properties) return false;
  return Object.entries(value).some(([k, v]) => (k in a.properties!) !== (k in b.properties!) || (k in a.properties! && carriesOneSidedField(v, a.properties![k], b.properties![k])));
}

/** `value` without the fields only one build declares: what both builds could write. */
function withoutOneSidedFields(value: unknown, schemaA: BoundedSchema | undefined, schemaB: BoundedSchema | undefined): unknown {
  if (!isObject(value)) return value;
  const [a, b] = [branchFor(schemaA, value), branchFor(schemaB, value)];
  if (!a?.properties || !b?.properties) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => (k in a.properties!) === (k in b.properties!))
      .map(([k, v]) => [k, k in a.properties! ? withoutOneSidedFields(v, a.properties![k], b.properties![k]) : v]),
  );
}

function payloadJson(frame: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(frame.subarray(16)).toString('utf8'));
  } catch {
    return undefined;
  }
}

type DisagreementKind = 'oldOnly' | 'newOnly' | 'newThrew' | 'value';

const threw = (v: FrameVerdict) => !v.ok && v.code === DECODER_THREW;

/**
 * What two verdicts disagree about, or undefined when they agree (both
 * refusing, for any reason, is agreement). 'newThrew': the new decoder threw
 * where the old one did not, a crash of the peer reading it, whatever the old
 * one made of the frame. 'oneSided': one refuses a frame carrying a field only
 * one build declares; it is read again without those fields, and only a
 * disagreement that remains counts.
 */
function disagreement(frame: Uint8Array, old: FrameVerdict, current: FrameVerdict, schemas: { old?: BoundedSchema; new?: BoundedSchema }): DisagreementKind | 'oneSided' | undefined {
  if (threw(current) && !threw(old)) return 'newThrew';
  if (!old.ok && !current.ok) return undefined;
  if (old.ok !== current.ok) {
    if (carriesOneSidedField(payloadJson(frame), schemas.old, schemas.new)) return 'oneSided';
    return old.ok ? 'oldOnly' : 'newOnly';
  }
  const [a, b] = [old, current] as Array<Extract<FrameVerdict, { ok: true }>>;
  // Equal texts are equal values, whatever either schema declares; key order or a one-sided field needs the slow comparison.
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y) || canonical(shared(x, schemas.old, schemas.new)) === canonical(shared(y, schemas.old, schemas.new));
  return a!.opcode === b!.opcode && a!.streamId === b!.streamId && a!.seq === b!.seq && same(a!.payload, b!.payload) ? undefined : 'value';
}

/**
 * Whether a build's codec peer reads Metadata events by their own schemas
 * (newer peers refuse a malformed known event as the client does: BAD_EVENT).
 * Asked with a probe, since an older build cannot say so.
 */
async function checksEvents(codec: Peer): Promise<boolean> {
  const probe = new Uint8Array(Buffer.concat([Buffer.from('74010c00010000000000000000000000', 'hex'), Buffer.from('{"type":"title"}')]));
  const [verdict] = await codec.call<FrameVerdict[]>('classify', { frames: [probe] });
  return verdict?.ok === false && verdict.code === 'BAD_EVENT';
}

/**
 * Opcodes whose change the gate has already judged elsewhere: present in one
 * build only (the static opcode rules), or named by a static finding. Any other
 * disagreement, a narrowed range in a schema included, is this check's to report.
 */
function declaredChanges(manifests: { old: WireManifest; new: WireManifest }, judgedStatically: ReadonlySet<string>): Set<number> {
  const declared = new Set<number>();
  for (let code = 0; code < 256; code++) {
    const [a, b] = [manifests.old.opcodes.find((o) => o.code === code), manifests.new.opcodes.find((o) => o.code === code)];
    if (!a !== !b || (a && (a.name !== b!.name || judgedStatically.has(a.name)))) declared.add(code);
  }
  return declared;
}

const describe = (v: FrameVerdict) => (v.ok ? `accepts it as ${v.opcodeName}` : threw(v) ? v.message : `refuses it (${v.code})`);
const shortHex = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, EXAMPLE_HEX_BYTES)).toString('hex') + (bytes.length > EXAMPLE_HEX_BYTES ? `… (${bytes.length} bytes)` : '');

interface Disagreement {
  readonly frame: MutatedFrame;
  readonly old: FrameVerdict;
  readonly current: FrameVerdict;
  readonly kind: DisagreementKind;
}

/** The frame with its one-sided fields removed, to be read again. */
function stripped(frame: MutatedFrame, schemas: { old?: BoundedSchema; new?: BoundedSchema }): MutatedFrame {
  const json = withoutOneSidedFields(payloadJson(frame.bytes), schemas.old, schemas.new);
  const payload = Buffer.from(JSON.stringify(json), 'utf8');
  const bytes = new Uint8Array(16 + payload.length);
  bytes.set(frame.bytes.subarray(0, 16));
  bytes.set(payload, 16);
  return { bytes, seedIndex: frame.seedIndex, mutation: `${frame.mutation}; then the fields one build lacks removed` };
}

/**
 * The differential codec check: both builds' decoders, each in a process of
 * its own build, read the same seeded mutations of real frames. A frame one
 * accepts and the other refuses, or that they read as different values, is a
 * finding, unless the static rules already judge a change to that opcode;
 * values are compared on the fields both schemas declare. One finding per
 * opcode and kind of disagreement, with its smallest example.
 */
export async function compareDecoders(
  codecs: { old: Peer; new: Peer },
  seeds: readonly Uint8Array[],
  manifests: { old: WireManifest; new: WireManifest },
  opts: { count: number; seed: number; judgedStatically: ReadonlySet<string>; onProgress?: (done: number) => void; oldKept?: KeptVerdicts },
): Promise<DecoderComparison> {
  const declared = declaredChanges(manifests, opts.judgedStatically);
  // Where only one build's peer checks events, its BAD_EVENT is the client's check, which the other peer does not model: not compared.
  const eventChecks = await Promise.all([checksEvents(codecs.old), checksEvents(codecs.new)]);
  const uncomparable = (v: FrameVerdict) => eventChecks[0] !== eventChecks[1] && !v.ok && v.code === 'BAD_EVENT';
  const schemaOf = (m: WireManifest, code: number) => (m.opcodes.find((o) => o.code === code)?.schema ?? undefined) as BoundedSchema | undefined;
  const found = new Map<string, { example: Disagreement; count: number; opcodes: Set<number> }>();
  // A decoder that throws is one crash whatever opcode reached it: its frames are grouped by writer and error class, not per opcode.
  const causeOf = (code: number, kind: DisagreementKind, current: FrameVerdict) => (kind === 'newThrew' ? `newThrew:${writerOf(manifests, code)}:${thrownClass(current)}` : `${code}:${kind}`);
  let read = 0;
  let skipped = 0;
  let repeated = 0;
  /** The frames drawn so far, by their SHA-1 (the key their kept verdicts go by too). */
  const drawn = new Set<string>();
  let uncompared = 0;
  let batch: MutatedFrame[] = [];
  let batchKeys: string[] = [];
  let batchBytes = 0;
  /** Frames to read again without their one-sided fields (see disagreement). */
  let again: MutatedFrame[] = [];
  const classify = (codec: Peer, frames: Uint8Array[]) => codec.call<FrameVerdict[]>('classify', { frames }, 120_000);
  /** The old decoder's verdicts: those kept from an earlier run, and the rest read now (and kept). */
  const oldVerdicts = async (bytes: Uint8Array[], keys: readonly string[]): Promise<FrameVerdict[]> => {
    const kept = opts.oldKept;
    if (!kept) return classify(codecs.old, bytes);
    const verdicts = keys.map((k) => kept.get(k));
    const unread = verdicts.flatMap((v, i) => (v ? [] : [i]));
    const fresh = unread.length ? await classify(codecs.old, unread.map((i) => bytes[i]!)) : [];
    unread.forEach((i, j) => ((verdicts[i] = fresh[j]!), kept.set(keys[i]!, fresh[j]!)));
    return verdicts as FrameVerdict[];
  };
  const judgeBatch = async (frames: readonly MutatedFrame[], keys: readonly string[], rereading: boolean) => {
    const bytes = frames.map((f) => f.bytes);
    const [byOld, byNew] = await Promise.all([oldVerdicts(bytes, keys), classify(codecs.new, bytes)]);
    frames.forEach((frame, i) => {
      const code = frame.bytes[2]!;
      if (uncomparable(byOld[i]!) || uncomparable(byNew[i]!)) return void uncompared++;
      const schemas = { old: schemaOf(manifests.old, code), new: schemaOf(manifests.new, code) };
      const kind = disagreement(frame.bytes, byOld[i]!, byNew[i]!, schemas);
      if (!kind) return;
      if (kind === 'oneSided') return void (rereading ? undefined : again.push(stripped(frame, schemas)));
      const key = causeOf(code, kind, byNew[i]!);
      const seen = found.get(key);
      const here: Disagreement = { frame, old: byOld[i]!, current: byNew[i]!, kind };
      if (!seen) found.set(key, { example: here, count: 1, opcodes: new Set([code]) });
      else found.set(key, { example: frame.bytes.length < seen.example.frame.bytes.length ? here : seen.example, count: seen.count + 1, opcodes: seen.opcodes.add(code) });
    });
  };
  const flush = async () => {
    if (!batch.length) return;
    await judgeBatch(batch, batchKeys, false);
    read += batch.length;
    opts.onProgress?.(read);
    batch = [];
    batchKeys = [];
    batchBytes = 0;
    if (again.length >= BATCH_FRAMES || again.reduce((sum, f) => sum + f.bytes.length, 0) >= BATCH_BYTES) await judgeAgain();
  };
  const judgeAgain = async () => {
    await judgeBatch(again, again.map((f) => KeptVerdicts.keyOf(f.bytes)), true);
    again = [];
  };
  if (seeds.length) {
    // `count` frames reach both decoders; those left to the static rules do not count (at most as many again are drawn).
    const bounds = boundaryProbes(seeds, (code) => [schemaOf(manifests.old, code), schemaOf(manifests.new, code)]);
    const frames = (function* () {
      yield* bounds;
      yield* mutatedFrames(seeds, opts.count * 2, opts.seed);
    })();
    for (const frame of frames) {
      if (read + repeated + batch.length >= opts.count) break;
      if (frame.bytes.length >= 3 && declared.has(frame.bytes[2]!)) {
        skipped++;
        continue;
      }
      // A frame drawn again reads as it did: one in seven of a draw was, each read by both decoders.
      const key = KeptVerdicts.keyOf(frame.bytes);
      if (drawn.has(key)) {
        repeated++;
        continue;
      }
      drawn.add(key);
      batch.push(frame);
      batchKeys.push(key);
      batchBytes += frame.bytes.length;
      if (batch.length >= BATCH_FRAMES || batchBytes >= BATCH_BYTES) await flush();
    }
    await flush();
    if (again.length) await judgeAgain();
  }
  const findings = [...found.values()].map(({ example, count, opcodes }) => finding(example, count, opcodes, manifests, seeds, opts.seed));
  return { frames: read + repeated, repeated, oldKept: opts.oldKept?.hits ?? 0, seed: opts.seed, declared: skipped, eventsUncompared: uncompared, findings };
}

const opcodeEntry = (manifests: { old: WireManifest; new: WireManifest }, code: number) => manifests.new.opcodes.find((o) => o.code === code) ?? manifests.old.opcodes.find((o) => o.code === code);
const writerOf = (manifests: { old: WireManifest; new: WireManifest }, code: number) => (opcodeEntry(manifests, code)?.direction === 'clientToHost' ? 'client' : 'host');
/** The class of what a decoder threw (`threw TypeError: …`): one crash, wherever it was reached. */
const thrownClass = (v: FrameVerdict) => (!v.ok && /^threw (\w+)/.exec(v.message)?.[1]) || 'Error';
/** How many opcodes a finding names before it counts the rest. */
const NAMED_OPCODES = 6;

/** A finding for one opcode's disagreement, or for every opcode where the new decoder threw alike: named by the lowest opcode. */
function finding(d: Disagreement, count: number, opcodes: ReadonlySet<number>, manifests: { old: WireManifest; new: WireManifest }, seeds: readonly Uint8Array[], seed: number): Finding {
  const names = [...opcodes].sort((a, b) => a - b).map((code) => opcodeEntry(manifests, code)?.name ?? `opcode ${code}`);
  const name = names[0]!;
  const frames = names.length === 1 ? `${count} mutated ${name} frame(s)` : `${count} mutated frame(s) of ${names.length} opcodes (${names.slice(0, NAMED_OPCODES).join(', ')}${names.length > NAMED_OPCODES ? ', …' : ''})`;
  const writer = writerOf(manifests, [...opcodes][0]!);
  // Refused by the new decoder: old writers break it; refused by the old one: new writers do; read differently: both.
  const direction = d.kind === 'newOnly' ? newWriterToOldReader(writer) : oldWriterToNewReader(writer);
  const what = { value: 'read differently by the two decoders', oldOnly: 'accepted by the old decoder and refused by the new one', newOnly: 'accepted by the new decoder and refused by the old one', newThrew: 'that made the new decoder throw (a peer reading them would crash, where a refusal is a typed error) and the old one did not' }[d.kind];
  return {
    pass: 'dynamic',
    ruleId: decodersDisagree.id,
    direction,
    subject: `decoder:${name}`,
    message: `${frames} ${what}, and no static rule names a change to ${names.length === 1 ? name : 'them'}; the smallest: the old decoder ${describe(d.old)}, the new one ${describe(d.current)} (${d.frame.mutation})`,
    evidence: {
      before: d.old.ok ? d.old.payload : { refused: d.old.code, message: d.old.message },
      after: d.current.ok ? d.current.payload : { refused: d.current.code, message: d.current.message },
      frameHex: shortHex(d.frame.bytes),
      frameBytes: d.frame.bytes.length,
      seedFrameHex: shortHex(seeds[d.frame.seedIndex]!),
      mutation: d.frame.mutation,
      count,
      seed,
    },
  };
}
