import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeSpecs, RULE_CATALOG } from '../../compat/rules/catalog.js';
import { DYNAMIC_PASS, RULES_OUTSIDE_RECORDINGS } from '../../compat/rules/dynamic/run-dynamic.js';
import { STATIC_PASS } from '../../compat/rules/static/run-static.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import { CAPS, healthySet } from './helpers/recordings.js';

const ids: readonly string[] = RULE_CATALOG.map((r) => r.id);
const count = (list: readonly { id: string }[], id: string) => list.filter((r) => r.id === id).length;

describe('rule specs', () => {
  it('ids are unique', () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every active rule has exactly one handler of its kind, or is judged outside the recordings', () => {
    for (const spec of activeSpecs()) {
      const inStatic = count(STATIC_PASS, spec.id);
      const inDynamic = count(DYNAMIC_PASS, spec.id);
      const outside = RULES_OUTSIDE_RECORDINGS.filter((id) => id === spec.id).length;
      if (spec.judgedOn === 'manifests') expect([inStatic, inDynamic, outside], spec.id).toEqual([1, 0, 0]);
      if (spec.judgedOn === 'recordings') expect([inStatic, inDynamic, outside], spec.id).toEqual([0, 1, 0]);
      // Judged elsewhere: wired into the dynamic pass by run-dynamic, or judged outside one journey's recordings.
      if (spec.judgedOn === 'elsewhere') expect([inStatic, inDynamic + outside], spec.id).toEqual([0, 1]);
    }
    expect([...STATIC_PASS, ...DYNAMIC_PASS].map((r) => r.id).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('every finding a static rule returns carries its own spec id', () => {
    const baseline = (): WireManifest => structuredClone(buildManifest('1.0.0'));
    const current = baseline();
    const [first, second] = current.opcodes;
    current.opcodes = current.opcodes.filter((o) => o !== second).map((o) => (o === first ? { ...o, name: 'Renamed', payloadKind: 'text' as const } : o));
    current.opcodes.push({ ...current.opcodes[1]!, code: 250, name: 'Fresh', gatedBy: null });
    delete current.capabilities[Object.keys(current.capabilities)[0]!];
    current.wireVersion += 1;
    const fired = STATIC_PASS.filter((spec) => {
      const findings = spec.run(baseline(), current);
      for (const f of findings) expect([f.ruleId, f.pass], spec.id).toEqual([spec.id, 'static']);
      return findings.length > 0;
    });
    expect(fired.map((s) => s.id)).toEqual(expect.arrayContaining(['OPCODE_NUMBER_REUSED', 'OPCODE_REMOVED', 'OPCODE_NEW_UNGATED', 'CAPABILITY_REMOVED', 'WIRE_VERSION_CHANGED']));
  });

  it('every finding a dynamic rule returns carries its own spec id', () => {
    const manifest = (): WireManifest => ({ ...structuredClone(buildManifest('1.0.0')), advertised: { host: { ...CAPS }, client: { ...CAPS } } });
    const set = healthySet();
    set.oldClientNewHost.steps[1] = { ...set.oldClientNewHost.steps[1]!, status: 'stalled' };
    set.newClientOldHost.frames[3] = { ...set.newClientOldHost.frames[3]!, refusedBy: { code: 'SCHEMA_MISMATCH', message: 'x' } };
    set.newNew.screens = { ...set.newNew.screens, client: 'different' };
    const fired = DYNAMIC_PASS.filter((rule) => {
      const findings = rule.run(set, { old: manifest(), new: manifest() });
      for (const f of findings) expect([f.ruleId, f.pass], rule.id).toEqual([rule.id, 'dynamic']);
      return findings.length > 0;
    });
    expect(fired.map((r) => r.id)).toEqual(expect.arrayContaining(['FRAME_REFUSED', 'JOURNEY_STALLED', 'SCREEN_MISMATCH']));
  });

  it("each rule id is written once as a string literal in compat/'s source, in its spec", () => {
    const root = join(import.meta.dirname, '../../compat');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const sources = files.map((f) => ({ file: relative(root, join(root, f)), text: readFileSync(join(root, f), 'utf8') }));
    const written = (id: string) => sources.flatMap(({ file, text }) => (text.match(new RegExp(`(['"])${id}\\1`, 'g')) ?? []).map(() => file));
    for (const id of ids) expect(written(id), id).toHaveLength(1);
  });
});
