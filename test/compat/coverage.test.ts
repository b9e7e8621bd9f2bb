import { describe, expect, it } from 'vitest';
import { keysOfFrame } from '../../compat/coverage/exercised.js';
import { coverageFindings, coverageLine, measureCoverage } from '../../compat/coverage/measure.js';
import type { RecordedFrame } from '../../compat/recording.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { SurfaceEntry, WireManifest } from '../../src/manifest/manifest-schema.js';
import { healthySet } from './helpers/recordings.js';

const frame = (opcodeName: string, payload: unknown, rawHex = ''): RecordedFrame => ({ index: 0, direction: 'hostToClient', step: 'input', opcode: 1, opcodeName, streamId: 1, seq: 0, payload, rawHex });
const header = '74'.padEnd(32, '0');

/** A manifest whose surface is `entries` only, so each test names exactly what the build declares. */
function manifestWith(entries: SurfaceEntry[]): WireManifest {
  return { ...buildManifest('1.0.0'), surface: entries };
}
const field = (opcode: string, path: string, extra: Partial<SurfaceEntry> = {}): SurfaceEntry =>
  ({ kind: 'field', key: `field:${opcode}.${path}`, directions: ['hostToClient'], opcode, path, type: 'string', optional: true, gatedBy: null, ...extra }) as SurfaceEntry;

describe('which surface keys a frame exercises', () => {
  it('names Metadata fields per event type, never the type discriminator as a field', () => {
    expect(keysOfFrame(frame('Metadata', { type: 'title', title: 'x' }))).toEqual(['opcode:Metadata', 'event:title', 'field:Metadata[type=title].title']);
  });

  it('counts no field for a payload the recording stands in for: output text kept as its length, a refused frame as hex', () => {
    expect(keysOfFrame(frame('Output', { textLeftOut: 5 }))).toEqual(['opcode:Output']);
    expect(keysOfFrame(frame('Resize', { hex: '00' }))).toEqual(['opcode:Resize']);
  });

  it("reads an Error's code, and the decoder's code inside BAD_FRAME", () => {
    expect(keysOfFrame(frame('Error', 'NOT_SUBSCRIBED: Input on stream 3'))).toContain('error:NOT_SUBSCRIBED');
    expect(keysOfFrame(frame('Error', 'BAD_FRAME: SCHEMA_MISMATCH: cols'))).toEqual(['opcode:Error', 'error:BAD_FRAME', 'error:decoder.SCHEMA_MISMATCH']);
  });

  it("reads InputAck's flag from the raw bytes, absent when there is no payload byte", () => {
    expect(keysOfFrame(frame('InputAck', { status: 'resend' }, `${header}02`))).toContain('flag:InputAck.2');
    expect(keysOfFrame(frame('InputAck', { status: 'applied' }, header))).toContain('flag:InputAck.absent');
  });
});

describe('coverage of the surface per direction', () => {
  const title = field('Metadata', '[type=title].title', { key: 'field:Metadata[type=title].title' } as Partial<SurfaceEntry>);
  const reason = field('Resized', 'reason');

  it('a new entry that no journey sends is a finding in each direction it can appear', () => {
    const report = measureCoverage({ old: manifestWith([]), new: manifestWith([reason]) }, healthySet());
    const findings = coverageFindings(report);
    expect(findings.map((f) => [f.ruleId, f.subject, f.direction])).toEqual([
      ['SURFACE_NOT_EXERCISED', 'field:Resized.reason', 'old client × new host'],
      ['SURFACE_NOT_EXERCISED', 'field:Resized.reason', 'new client × new host'],
    ]);
    // The old host does not have it, so new client × old host cannot carry it.
    expect(report.notApplicable).toContainEqual({ key: 'field:Resized.reason', direction: 'new client × old host', reason: 'the old host does not have it' });
  });

  it('an entry the baseline already had and no journey sends is a warning, not a finding', () => {
    const report = measureCoverage({ old: manifestWith([reason]), new: manifestWith([reason]) }, healthySet());
    expect(coverageFindings(report)).toEqual([]);
    expect(report.uncovered.map((u) => [u.key, u.isNew])).toContainEqual(['field:Resized.reason', false]);
  });

  it('an exercised entry is counted as covered', () => {
    const set = healthySet();
    for (const rec of Object.values(set)) rec.frames.push(frame('Metadata', { type: 'title', title: 'x' }));
    const report = measureCoverage({ old: manifestWith([title]), new: manifestWith([title]) }, set);
    expect(report.uncovered).toEqual([]);
    expect(coverageLine(report.directions[0]!.counts)).toContain('fields 1/1');
  });

  it('a gated entry is judged only where both sides advertise its capability', () => {
    const gated = field('Resized', 'reason', { gatedBy: 'brandNew' } as Partial<SurfaceEntry>);
    const set = healthySet();
    set.newNew.advertised = { client: { ...set.newNew.advertised.client, brandNew: 1 }, host: { ...set.newNew.advertised.host, brandNew: 1 } };
    const findings = coverageFindings(measureCoverage({ old: manifestWith([]), new: manifestWith([gated]) }, set));
    expect(findings.map((f) => f.direction)).toEqual(['new client × new host']);
  });

  it('an exempt entry is counted apart, never as covered and never as a gap', () => {
    const span = field('OutputSpan', 'data');
    const report = measureCoverage({ old: manifestWith([]), new: manifestWith([span]) }, healthySet());
    expect(report.uncovered).toEqual([]);
    expect(report.directions[0]!.counts.field).toEqual({ exercised: 0, applicable: 0, exempt: 1 });
  });
});
