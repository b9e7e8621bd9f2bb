import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeptVerdicts } from '../../compat/codec-diff/kept-verdicts.js';
import { compareDecoders, seedFrames } from '../../compat/codec-diff/compare-decoders.js';
import { jsonOf, mutatedFrames, setAt } from '../../compat/codec-diff/mutate.js';
import type { PeerProcess } from '../../compat/journey/peer-process.js';
import { classifyCaught, classifyFrame, DECODER_THREW, type FrameVerdict } from '../../compat/peer/codec-peer.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';

// In-process stand-ins for the two builds' codec peers: this build's own decoder, once as it is and once with one planted difference.
const codec = (classify: (bytes: Uint8Array) => FrameVerdict) => ({ call: async (_op: string, args: { frames: Uint8Array[] }) => args.frames.map(classify) }) as unknown as PeerProcess;
const json = (op: number, value: unknown) => encodeFrame({ opcode: op, streamId: op === Op.Subscribe ? 0 : 1, seq: 0, payload: new TextEncoder().encode(JSON.stringify(value)) });
const seeds = seedFrames([json(Op.Subscribe, { streamId: 1, terminal: 'main', capabilities: { inputAck: 1 } }), json(Op.Resize, { cols: 80, rows: 24 }), json(Op.Ack, { bytes: 10 })].map((b) => Buffer.from(b).toString('hex')));
const manifests = { old: buildManifest('1.0.0'), new: buildManifest('1.0.1') };
const check = (current: (bytes: Uint8Array) => FrameVerdict, judgedStatically: ReadonlySet<string> = new Set()) =>
  compareDecoders({ old: codec(classifyFrame), new: codec(current) }, seeds, manifests, { count: 5_000, seed: 7, judgedStatically });

/** The new decoder refuses Subscribe terminal names longer than 64 characters, as a narrowed schema would. */
const narrowed = (bytes: Uint8Array): FrameVerdict => {
  const verdict = classifyFrame(bytes);
  if (verdict.ok && verdict.opcode === Op.Subscribe && String((verdict.payload as { terminal: string }).terminal).length > 64) return { ok: false, code: 'SCHEMA_MISMATCH', message: 'terminal: too long' };
  return verdict;
};

describe('the differential codec check', () => {
  it('draws the same frames from the same seed, and others from another', () => {
    const draw = (seed: number) => [...mutatedFrames(seeds, 200, seed)].map((f) => Buffer.from(f.bytes).toString('hex'));
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3)).not.toEqual(draw(4));
  });

  it("draws a seed's frames from a stream of its own: a run with one more seed draws the same frames from the seeds both share", () => {
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const bySeed = (from: readonly Uint8Array[]) => {
      const drawn = new Map<string, string[]>();
      for (const f of mutatedFrames(from, 3_000, 5)) if (!/payload grown by|extra tokens/.test(f.mutation)) drawn.set(hex(from[f.seedIndex]!), [...(drawn.get(hex(from[f.seedIndex]!)) ?? []), hex(f.bytes)]);
      return drawn;
    };
    // Sorted before the Ack of 10 bytes, the extra seed moves that seed's index.
    const more = seedFrames([...seeds, json(Op.Ack, { bytes: 0 })].map(hex));
    const [fewer, wider] = [bySeed(seeds), bySeed(more)];
    expect(seeds.some((s, i) => hex(more[i]!) !== hex(s))).toBe(true);
    for (const seed of seeds) {
      const [a, b] = [fewer.get(hex(seed))!, wider.get(hex(seed))!];
      expect(b.length).toBeGreaterThan(500);
      expect(a.slice(0, b.length), 'the same frames, as far as the run with fewer turns each went').toEqual(b);
    }
  });

  it('probes each grown size and token count once per opcode the seeds carry, before the drawn frames, and never draws them', () => {
    const frames = [...mutatedFrames(seeds, 2_000, 3)];
    const large = (f: { mutation: string }) => /payload grown by|extra tokens/.test(f.mutation);
    const probes = frames.filter(large).map((f) => `${f.bytes[2]} ${f.mutation}`);
    // Three opcodes, each a JSON object: three grown sizes and three token counts each.
    expect(probes).toHaveLength(3 * 6);
    expect(new Set(probes).size).toBe(probes.length);
    expect(frames.slice(0, probes.length).every(large)).toBe(true);
    expect(frames.filter(large).some((f) => f.bytes.length > 1024 * 1024)).toBe(true);
  });

  it('sets a value inside a payload on a copy, in key order, and leaves the payload it was given as it was', () => {
    const root = { streamId: 1, capabilities: { inputAck: 1, ackOutput: 1 }, list: [1, 2, 3] };
    const before = JSON.stringify(root);
    expect(JSON.stringify(setAt(root, ['capabilities', 'inputAck'], null))).toBe('{"streamId":1,"capabilities":{"inputAck":null,"ackOutput":1},"list":[1,2,3]}');
    expect(JSON.stringify(setAt(root, ['list', 1], 'x'))).toBe('{"streamId":1,"capabilities":{"inputAck":1,"ackOutput":1},"list":[1,"x",3]}');
    expect(JSON.stringify(setAt(root, [], 7))).toBe('7');
    expect(JSON.stringify(root)).toBe(before);
  });

  it("parses a seed's payload once, and no mutation changes the value it shares", () => {
    const seed = seeds.find((s) => s[2] === Op.Subscribe)!;
    expect(jsonOf(seed)).toBe(jsonOf(seed));
    const before = JSON.stringify(jsonOf(seed));
    expect([...mutatedFrames(seeds, 3_000, 11)].filter((f) => f.mutation.startsWith('JSON')).length).toBeGreaterThan(100);
    expect(JSON.stringify(jsonOf(seed))).toBe(before);
    expect(before).toBe(Buffer.from(seed.subarray(16)).toString('utf8'));
  });

  it('two identical decoders agree on every frame', async () => {
    const result = await check(classifyFrame);
    expect(result.frames).toBe(5_000);
    expect(result.findings).toEqual([]);
  });

  it('reads a frame drawn again byte for byte once, and counts it among the frames read', async () => {
    const sent: string[] = [];
    const counting = { call: async (_op: string, args: { frames: Uint8Array[] }) => (args.frames.forEach((f) => sent.push(Buffer.from(f).toString('hex'))), args.frames.map((f) => classifyFrame(f))) } as unknown as PeerProcess;
    const result = await compareDecoders({ old: codec(classifyFrame), new: counting }, seeds, manifests, { count: 5_000, seed: 7, judgedStatically: new Set() });
    expect(new Set(sent).size, 'no frame read twice').toBe(sent.length);
    expect(result.repeated, 'three small seeds: many draws repeat').toBeGreaterThan(100);
    expect(result.frames).toBe(5_000);
    // What was sent: the frames drawn once, and the few read again without their one-sided fields.
    expect(sent.length + result.repeated).toBeGreaterThanOrEqual(5_000);
    expect(sent.length + result.repeated).toBeLessThan(5_000 + 50);
  });

  it("keeps the old decoder's verdicts for the next run: a run of the same draw reads no frame with the old decoder, and finds the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'termwire-kept-'));
    try {
      let oldRead = 0;
      // The one frame that asks whether a peer checks events is asked every run.
      const countingOld = { call: async (_op: string, args: { frames: Uint8Array[] }) => ((oldRead += args.frames.length), args.frames.map((f) => classifyFrame(f))) } as unknown as PeerProcess;
      const run = async () => {
        const oldKept = KeptVerdicts.open(dir, 'v1.0.0 cache-entry');
        const result = await compareDecoders({ old: countingOld, new: codec(narrowed) }, seeds, manifests, { count: 5_000, seed: 7, judgedStatically: new Set(), oldKept });
        oldKept.save();
        return result;
      };
      const first = await run();
      expect(oldRead).toBeGreaterThan(1_000);
      expect(first.oldKept).toBe(0);
      oldRead = 0;
      const second = await run();
      expect(oldRead, 'only the events probe').toBe(1);
      expect(second.oldKept).toBeGreaterThan(1_000);
      expect(second.findings).toEqual(first.findings);
      expect(second.findings.length).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a narrowed field is DECODERS_DISAGREE, old writers to the new reader, with its smallest example and the seed', async () => {
    const { findings } = await check(narrowed);
    console.log(findings.map((f) => f.message));
    expect(findings.map((f) => [f.ruleId, f.direction, f.subject])).toEqual([['DECODERS_DISAGREE', 'old client × new host', 'decoder:Subscribe']]);
    expect(findings[0]!.evidence).toMatchObject({ seed: 7, after: { refused: 'SCHEMA_MISMATCH' } });
    expect(findings[0]!.message).toContain('accepted by the old decoder and refused by the new one');
  });

  it("a bound moved between builds is probed at both builds' bounds, where no edge value falls (a name of at most 250 characters, not 256)", async () => {
    const newManifest = structuredClone(manifests.new);
    const subscribe = newManifest.opcodes.find((o) => o.code === Op.Subscribe)!.schema as { properties: { terminal: { maxLength: number } } };
    subscribe.properties.terminal.maxLength = 250;
    const narrowedTo250 = (bytes: Uint8Array): FrameVerdict => {
      const verdict = classifyFrame(bytes);
      if (verdict.ok && verdict.opcode === Op.Subscribe && String((verdict.payload as { terminal: string }).terminal).length > 250) return { ok: false, code: 'SCHEMA_MISMATCH', message: 'terminal: too long' };
      return verdict;
    };
    const { findings } = await compareDecoders({ old: codec(classifyFrame), new: codec(narrowedTo250) }, seeds, { old: manifests.old, new: newManifest }, { count: 2_000, seed: 7, judgedStatically: new Set() });
    console.log(findings.map((f) => f.message));
    expect(findings.map((f) => [f.ruleId, f.direction, f.subject])).toEqual([['DECODERS_DISAGREE', 'old client × new host', 'decoder:Subscribe']]);
    // 251 (past the new bound), 255 and 256 (inside the old one); 257 both refuse.
    expect(findings[0]!.message).toMatch(/^3 mutated Subscribe frame\(s\) accepted by the old decoder and refused by the new one/);
    expect(findings[0]!.message).toContain(`terminal = "${'x'.repeat(19)} (251 characters) (a schema bound)`);
  });

  it('an opcode a static finding already names is left to the static rules', async () => {
    const result = await check(narrowed, new Set(['Subscribe']));
    expect(result.findings).toEqual([]);
    expect(result.declared).toBeGreaterThan(0);
  });

  it('a refusal over a field only one build declares is not a disagreement: the other build never writes it', async () => {
    // The new build adds an optional `nested` field to Subscribe and reads it strictly; the old one strips it as unknown.
    const added = structuredClone(manifests);
    const subscribe = added.new.opcodes.find((o) => o.name === 'Subscribe')!;
    (subscribe.schema as { properties: Record<string, unknown> }).properties.nested = { type: 'string' };
    const strict = (bytes: Uint8Array): FrameVerdict => {
      const v = classifyFrame(bytes);
      const carries = bytes[2] === Op.Subscribe && Buffer.from(bytes.subarray(16)).toString('utf8').includes('"nested"');
      return v.ok && carries ? { ok: false, code: 'SCHEMA_MISMATCH', message: 'nested: expected string' } : v;
    };
    const result = await compareDecoders({ old: codec(classifyFrame), new: codec(strict) }, seeds, added, { count: 5_000, seed: 7, judgedStatically: new Set() });
    expect(result.findings).toEqual([]);
    // A one-sided field does not hide a narrowed shared one: the frame is read again without it.
    const both = (bytes: Uint8Array): FrameVerdict => {
      const v = strict(bytes);
      return v.ok ? narrowed(bytes) : v;
    };
    const masked = await compareDecoders({ old: codec(classifyFrame), new: codec(both) }, seeds, added, { count: 5_000, seed: 7, judgedStatically: new Set() });
    expect(masked.findings.map((f) => f.subject)).toEqual(['decoder:Subscribe']);
    // Without the declaration the same refusals are a disagreement.
    const undeclared = await compareDecoders({ old: codec(classifyFrame), new: codec(strict) }, seeds, manifests, { count: 5_000, seed: 7, judgedStatically: new Set() });
    expect(undeclared.findings.map((f) => f.subject)).toEqual(['decoder:Subscribe']);
  });

  it('values are compared on the fields both schemas declare: a field the new build adds and keeps is not a disagreement', async () => {
    const added = structuredClone(manifests);
    (added.new.opcodes.find((o) => o.name === 'Ack')!.schema as { properties: Record<string, unknown> }).properties.extra = { type: 'string' };
    const keeps = (bytes: Uint8Array): FrameVerdict => {
      const v = classifyFrame(bytes);
      return v.ok && v.opcode === Op.Ack ? { ...v, payload: { ...(v.payload as object), extra: 'kept' } } : v;
    };
    const declared = await compareDecoders({ old: codec(classifyFrame), new: codec(keeps) }, seeds, added, { count: 5_000, seed: 7, judgedStatically: new Set() });
    expect(declared.findings).toEqual([]);
  });

  it('a decoder that throws on a frame gives the verdict DECODER_THREW, so the gate compares it instead of losing the peer', () => {
    const verdict = classifyCaught(json(Op.Ack, { bytes: 1 }), {}, () => {
      throw new SyntaxError('Unexpected token');
    });
    expect(verdict).toEqual({ ok: false, code: DECODER_THREW, message: 'threw SyntaxError: Unexpected token' });
    expect(classifyCaught(json(Op.Ack, { bytes: 1 }))).toEqual(classifyFrame(json(Op.Ack, { bytes: 1 })));
  });

  it('the new decoder throwing where the old one refused with a typed error is a disagreement: a refusal on both sides is not agreement when one is a crash', async () => {
    // JSON.parse no longer caught: malformed JSON throws out of the decoder instead of BAD_JSON.
    const parseUncaught = (bytes: Uint8Array) =>
      classifyCaught(bytes, {}, (b) => {
        const v = classifyFrame(b);
        if (!v.ok && v.code === 'BAD_JSON') throw new SyntaxError('Unexpected token');
        return v;
      });
    const { findings } = await check(parseUncaught);
    // One crash, one finding per side whose frames reach it, under the lowest opcode of each: not one per opcode.
    // Host-written opcodes are reached only by a drawn opcode byte, so which is lowest depends on the draw.
    expect(findings.map((f) => [f.ruleId, f.direction, f.subject])).toEqual([
      ['DECODERS_DISAGREE', 'old client × new host', 'decoder:Resize'],
      ['DECODERS_DISAGREE', 'new client × old host', expect.stringMatching(/^decoder:/)],
    ]);
    expect(findings[0]!.message).toMatch(/^\d+ mutated frame\(s\) of \d+ opcodes \(Resize, Subscribe, Ack[^)]*\) that made the new decoder throw .*threw SyntaxError/);
    // The old decoder throwing where the new one refuses is the new build mending a crash, not a break.
    const mended = await compareDecoders({ old: codec(parseUncaught), new: codec(classifyFrame) }, seeds, manifests, { count: 5_000, seed: 7, judgedStatically: new Set() });
    expect(mended.findings).toEqual([]);
  });

  it('a value read differently is a disagreement', async () => {
    const doubled = (bytes: Uint8Array): FrameVerdict => {
      const v = classifyFrame(bytes);
      return v.ok && v.opcode === Op.Ack ? { ...v, payload: { bytes: (v.payload as { bytes: number }).bytes * 2 } } : v;
    };
    const { findings } = await check(doubled);
    expect(findings.map((f) => [f.subject, f.message.includes('read differently')])).toEqual([['decoder:Ack', true]]);
  });
});
