import { describe, expect, it } from 'vitest';
import { OPCODES } from '../codec/opcodes.js';
import { buildManifest } from '../manifest/build-manifest.js';
import { manifestProjections, PROJECTIONS } from './projection-table.js';
import { type AnyProjection, projection, type ProjectionCounters, ProjectionRegistry, StreamProjections } from './projections.js';
import type { CapabilitySet } from './registry.js';

function setup(table: readonly AnyProjection[], negotiated: CapabilitySet = {}) {
  const logged: string[] = [];
  const counters: ProjectionCounters = { projectionsWithheld: 0, projectionErrors: 0 };
  const registry = new ProjectionRegistry(table, { log: (line) => logged.push(line) });
  return { logged, counters, projections: new StreamProjections(registry, 7, negotiated, counters) };
}

const appendReason = (name: string, capability: 'outputPause' | 'writeUnavailable', suffix: string) =>
  projection({ name, opcode: 'Resized', capability, purpose: `appends ${suffix}`, project: (r) => ({ ...r, reason: `${r.reason ?? ''}${suffix}` }) });

describe('ProjectionRegistry and StreamProjections', () => {
  it('runs the projections on one opcode in table order, each on the previous result, skipping those the peer negotiated', () => {
    const table = [appendReason('first', 'outputPause', '>a'), appendReason('second', 'writeUnavailable', '>b'), appendReason('third', 'outputPause', '>c')];
    expect(setup(table).projections.project('Resized', { cols: 80, rows: 24, reason: 'r' }, 3)).toEqual({ payload: { cols: 80, rows: 24, reason: 'r>a>b>c' } });
    expect(setup(table, { outputPause: 1 }).projections.project('Resized', { cols: 80, rows: 24, reason: 'r' }, 3)).toEqual({ payload: { cols: 80, rows: 24, reason: 'r>b' } });
    // Version 0 of a capability is not negotiated.
    expect(setup(table, { outputPause: 0, writeUnavailable: 1 }).projections.project('Resized', { cols: 80, rows: 24 }, 3)?.payload.reason).toBe('>a>c');
  });

  it('leaves other opcodes, and the bytes of untouched text opcodes, as they are', () => {
    const { projections } = setup([appendReason('only', 'outputPause', '!')]);
    const bytes = new TextEncoder().encode('hello');
    expect(projections.projectBytes('Output', bytes, 5)).toBe(bytes);
    expect(projections.project('Metadata', { type: 'title', title: 't' }, 0)).toEqual({ payload: { type: 'title', title: 't' } });
  });

  it('rewrites a text opcode held as bytes, and hands the projection the frame it is for', () => {
    const seen: Array<{ streamId: number; seq: number }> = [];
    const upper = projection({ name: 'upper', opcode: 'Output', capability: 'outputPause', purpose: 'upper-cases output', project: (text, frame) => (seen.push(frame), text.toUpperCase()) });
    const { projections } = setup([upper]);
    expect(new TextDecoder().decode(projections.projectBytes('Output', new TextEncoder().encode('héllo'), 9))).toBe('HÉLLO');
    expect(seen).toEqual([{ streamId: 7, seq: 9 }]);
    const unchanged = new TextEncoder().encode('ALREADY');
    expect(projections.projectBytes('Output', unchanged, 10)).toBe(unchanged);
  });

  it('withholds a frame when a projection returns null: nothing is sent, it is counted, later projections do not run', () => {
    let laterRan = false;
    const table = [
      projection({ name: 'hide-title', opcode: 'Metadata', capability: 'outputPause', purpose: 'withholds title events', project: (e) => (e.type === 'title' ? null : e) }),
      projection({ name: 'later', opcode: 'Metadata', capability: 'outputPause', purpose: 'notes that it ran', project: (e) => ((laterRan = true), e) }),
    ];
    const { projections, counters } = setup(table);
    expect(projections.project('Metadata', { type: 'title', title: 'secret' }, 0)).toBeUndefined();
    expect(counters).toEqual({ projectionsWithheld: 1, projectionErrors: 0 });
    expect(laterRan).toBe(false);
    projections.update({ outputPause: 1 });
    expect(projections.project('Metadata', { type: 'title', title: 'secret' }, 0)).toEqual({ payload: { type: 'title', title: 'secret' } });
  });

  it('does not send a frame whose projection throws: counted, logged with its name, and the next frame goes through', () => {
    const fragile = projection({
      name: 'fragile',
      opcode: 'Resized',
      capability: 'outputPause',
      purpose: 'throws on 99 columns',
      project: (r) => {
        if (r.cols === 99) throw new Error('no 99');
        return r;
      },
    });
    const { projections, counters, logged } = setup([fragile]);
    expect(projections.project('Resized', { cols: 99, rows: 24 }, 4)).toBeUndefined();
    expect(counters).toEqual({ projectionsWithheld: 0, projectionErrors: 1 });
    expect(logged).toEqual(["PROJECTION_FAILED: projection 'fragile' on Resized (stream 7, seq 4) threw; frame not sent: no 99"]);
    expect(projections.project('Resized', { cols: 100, rows: 24 }, 5)).toEqual({ payload: { cols: 100, rows: 24 } });
  });

  it('refuses a table that names one projection twice', () => {
    expect(() => new ProjectionRegistry([appendReason('twice', 'outputPause', 'a'), appendReason('twice', 'outputPause', 'b')])).toThrow("projection 'twice' is registered twice");
  });
});

describe('the worked example: SnapshotStart.cause under snapshotCause', () => {
  const start = { kind: 'scrollback', cols: 80, rows: 24, requestId: 'r1', seq: 42, cause: 'resume', truncated: false };

  it('gives a peer without snapshotCause the old shape byte for byte: source in the place of cause, resume and overflow as recovery', () => {
    const { projections } = setup(PROJECTIONS);
    for (const [cause, source] of [['subscribe', 'subscribe'], ['request', 'request'], ['resume', 'recovery'], ['overflow', 'recovery'], ['later', 'later']]) {
      const projected = projections.project('SnapshotStart', { ...start, cause }, 42)!.payload;
      expect(JSON.stringify(projected)).toBe(JSON.stringify({ kind: 'scrollback', cols: 80, rows: 24, requestId: 'r1', seq: 42, source, truncated: false }));
    }
  });

  it('gives a peer that negotiated snapshotCause the new shape untouched', () => {
    const { projections } = setup(PROJECTIONS, { snapshotCause: 1 });
    expect(projections.project('SnapshotStart', start, 42)!.payload).toBe(start);
  });

  it('lists every projection for the manifest: name, opcode, capability and purpose', () => {
    expect(manifestProjections()).toEqual([
      { name: 'SnapshotStart.cause-as-source', opcode: 'SnapshotStart', capability: 'snapshotCause', purpose: expect.stringContaining("'recovery'") },
    ]);
    for (const row of manifestProjections()) expect(OPCODES).toHaveProperty(row.opcode);
    expect(buildManifest('0.0.0').projections).toEqual(manifestProjections());
  });
});
