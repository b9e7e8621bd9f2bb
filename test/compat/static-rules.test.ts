import { describe, expect, it } from 'vitest';
import { activeRules, RULE_CATALOG } from '../../compat/rules/catalog.js';
import { runStaticRules, STATIC_PASS } from '../../compat/rules/static/run-static.js';
import { schemaFields } from '../../src/manifest/schema-fields.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { ManifestOpcode, WireManifest } from '../../src/manifest/manifest-schema.js';
import { schemaSurface } from '../../src/manifest/surface.js';
import { surfaceNotes } from '../../compat/manifest/surface.js';

// Manifests are tampered copies of this build's real manifest: the baseline is
// "this build", the current one carries exactly one planted change.
const baseline = (): WireManifest => structuredClone(buildManifest('1.0.0'));
function tamper(edit: (m: WireManifest) => void): WireManifest {
  const m = baseline();
  edit(m);
  return m;
}
const op = (m: WireManifest, name: string): ManifestOpcode => m.opcodes.find((o) => o.name === name)!;
type Props = Record<string, Record<string, unknown>>;
const props = (o: ManifestOpcode) => (o.schema as { properties: Props }).properties;
const required = (o: ManifestOpcode) => (o.schema as { required: string[] }).required;
/** Re-derives the schema part of a tampered manifest's surface list, as the build would print it. */
function resurface(m: WireManifest): WireManifest {
  const tables = (m.surface ?? []).filter((e) => e.kind === 'flag' || e.kind === 'error');
  return { ...m, surface: [...schemaSurface(m.opcodes, m.capabilities), ...tables] };
}
const withoutSurface = (m: WireManifest): WireManifest => {
  const { surface: _gone, ...rest } = m;
  return rest;
};
const summary = (m: WireManifest) => runStaticRules(baseline(), m).map((f) => `${f.ruleId} | ${f.direction} | ${f.subject}`);

describe('static rules', () => {
  it('an unchanged manifest has no findings', () => {
    expect(runStaticRules(baseline(), baseline())).toEqual([]);
  });

  it('an additive optional field stays green', () => {
    const m = tamper((x) => {
      props(op(x, 'SnapshotStart')).hiddenOutputReason = { type: 'string' };
    });
    expect(summary(m)).toEqual([]);
  });

  it('a new opcode gated by a capability stays green', () => {
    const m = tamper((x) => x.opcodes.push({ ...op(x, 'WriteUnavailable'), code: 200, name: 'Chime', gatedBy: 'writeUnavailable' }));
    expect(summary(m)).toEqual([]);
  });

  it('OPCODE_NUMBER_REUSED: a renamed number breaks both directions', () => {
    const m = tamper((x) => Object.assign(op(x, 'ClaimViewport'), { name: 'Focus' }));
    // Old clients write 14 to new hosts, new clients write 14 to old hosts: each reads the wrong opcode.
    expect(summary(m).sort()).toEqual(['OPCODE_NUMBER_REUSED | new client × old host | opcode 14', 'OPCODE_NUMBER_REUSED | old client × new host | opcode 14']);
    // Reused for a host frame: old clients write 14 to new hosts, new hosts write 14 to old clients.
    const flipped = tamper((x) => Object.assign(op(x, 'ClaimViewport'), { name: 'Chime', direction: 'hostToClient' }));
    expect(summary(flipped)).toEqual(['OPCODE_NUMBER_REUSED | old client × new host | opcode 14']);
  });

  it('OPCODE_REMOVED: a number gone without a tombstone; a retired tombstone is fine', () => {
    const gone = tamper((x) => x.opcodes.splice(x.opcodes.indexOf(op(x, 'OutputSpan')), 1));
    // Old hosts still send it; the new client no longer knows it.
    expect(summary(gone)).toEqual(['OPCODE_REMOVED | new client × old host | OutputSpan']);
    const tombstone = tamper((x) => Object.assign(op(x, 'OutputSpan'), { retired: true }));
    expect(summary(tombstone)).toEqual([]);
  });

  it('OPCODE_NEW_UNGATED: direction follows the writer', () => {
    const hostOp = tamper((x) => x.opcodes.push({ ...op(x, 'Output'), code: 200, name: 'Chime' }));
    expect(summary(hostOp)).toEqual(['OPCODE_NEW_UNGATED | old client × new host | Chime']);
    const clientOp = tamper((x) => x.opcodes.push({ ...op(x, 'Input'), code: 20, name: 'Paste' }));
    expect(summary(clientOp)).toEqual(['OPCODE_NEW_UNGATED | new client × old host | Paste']);
  });

  it('PAYLOAD_FIELD_REMOVED: the old reader of a host frame is the old client', () => {
    const m = tamper((x) => {
      delete props(op(x, 'SnapshotStart')).requestId;
    });
    const [f] = runStaticRules(baseline(), m);
    expect(summary(m)).toEqual(['PAYLOAD_FIELD_REMOVED | old client × new host | SnapshotStart.requestId']);
    expect(f!.evidence).toEqual({ before: 'optional', after: 'absent' });
  });

  it('PAYLOAD_FIELD_REMOVED: a removed nested object is reported once, at its top', () => {
    const m = tamper((x) => {
      delete props(op(x, 'Subscribe')).client;
    });
    expect(summary(m)).toEqual(['PAYLOAD_FIELD_REMOVED | new client × old host | Subscribe.client']);
  });

  it('PAYLOAD_FIELD_REMOVED: fields of a union variant are compared per variant', () => {
    const m = tamper((x) => {
      const variants = (op(x, 'Metadata').schema as { anyOf: Array<{ properties: Props }> }).anyOf;
      delete variants[0]!.properties.truncated;
    });
    expect(summary(m)).toEqual(['PAYLOAD_FIELD_REMOVED | old client × new host | Metadata.[type=subscribed].truncated']);
  });

  it('PAYLOAD_FIELD_MADE_REQUIRED: optional made required, and a new required field, break the new reader', () => {
    const madeRequired = tamper((x) => required(op(x, 'SnapshotStart')).push('requestId'));
    const [f] = runStaticRules(baseline(), madeRequired);
    // The new client reads SnapshotStart; old hosts omit requestId.
    expect(summary(madeRequired)).toEqual(['PAYLOAD_FIELD_MADE_REQUIRED | new client × old host | SnapshotStart.requestId']);
    expect(f!.evidence).toEqual({ before: 'optional', after: 'required' });
    const newRequired = tamper((x) => {
      props(op(x, 'Subscribe')).locale = { type: 'string' };
      required(op(x, 'Subscribe')).push('locale');
    });
    expect(summary(newRequired)).toEqual(['PAYLOAD_FIELD_MADE_REQUIRED | old client × new host | Subscribe.locale']);
  });

  it('PAYLOAD_FIELD_MADE_REQUIRED: a required child of a new optional object stays green', () => {
    const m = tamper((x) => {
      props(op(x, 'Subscribe')).terminalOwner = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    });
    expect(summary(m)).toEqual([]);
  });

  it('PAYLOAD_KIND_CHANGED: both skews break', () => {
    const m = tamper((x) => Object.assign(op(x, 'Error'), { payloadKind: 'json', schema: { type: 'object', properties: {} } }));
    expect(summary(m).sort()).toEqual(['PAYLOAD_KIND_CHANGED | new client × old host | Error', 'PAYLOAD_KIND_CHANGED | old client × new host | Error']);
  });

  it('CAPABILITY_REMOVED: both skews; not also reported as no longer advertised', () => {
    const m = tamper((x) => {
      delete x.capabilities.outputPause;
      delete x.advertised.host.outputPause;
      delete x.advertised.client.outputPause;
    });
    expect(summary(m).sort()).toEqual(['CAPABILITY_REMOVED | new client × old host | capability outputPause', 'CAPABILITY_REMOVED | old client × new host | capability outputPause']);
  });

  it('CAPABILITY_NO_LONGER_ADVERTISED: the side that stopped names the direction', () => {
    const host = tamper((x) => delete x.advertised.host.writeUnavailable);
    expect(summary(host)).toEqual(['CAPABILITY_NO_LONGER_ADVERTISED | old client × new host | capability writeUnavailable']);
    const client = tamper((x) => delete x.advertised.client.ackOutput);
    expect(summary(client)).toEqual(['CAPABILITY_NO_LONGER_ADVERTISED | new client × old host | capability ackOutput']);
    const added = tamper((x) => (x.advertised.host.inputAck = 1));
    expect(summary(added)).toEqual([]);
  });

  it('WIRE_VERSION_CHANGED: both skews', () => {
    const m = tamper((x) => (x.wireVersion = 2));
    expect(summary(m).sort()).toEqual(['WIRE_VERSION_CHANGED | new client × old host | wire version', 'WIRE_VERSION_CHANGED | old client × new host | wire version']);
  });

  it('FIELD_TYPE_CHANGED: widened breaks old readers, narrowed breaks new readers, anything else both', () => {
    const widened = tamper((x) => (props(op(x, 'Resized')).cols = { anyOf: [{ type: 'integer' }, { type: 'null' }] }));
    expect(summary(widened)).toEqual(['FIELD_TYPE_CHANGED | old client × new host | Resized.cols']);
    const variants = (x: WireManifest) => (op(x, 'Metadata').schema as { anyOf: Array<{ properties: Props }> }).anyOf;
    const narrowed = tamper((x) => (variants(x).find((v) => v.properties.type!.const === 'exit')!.properties.exitCode = { type: 'integer' }));
    expect(summary(narrowed)).toEqual(['FIELD_TYPE_CHANGED | new client × old host | Metadata.[type=exit].exitCode']);
    const swapped = tamper((x) => (props(op(x, 'Ack')).bytes = { type: 'string' }));
    expect(summary(swapped).sort()).toEqual(['FIELD_TYPE_CHANGED | new client × old host | Ack.bytes', 'FIELD_TYPE_CHANGED | old client × new host | Ack.bytes']);
    const integerToNumber = tamper((x) => (props(op(x, 'Resize')).cols = { type: 'number' }));
    expect(summary(integerToNumber)).toEqual(['FIELD_TYPE_CHANGED | new client × old host | Resize.cols']);
  });

  it('ERROR_CODE_REMOVED: a removed or renamed code breaks old clients; a rename is named', () => {
    const removed = tamper((x) => (x.surface = x.surface!.filter((e) => e.key !== 'error:NOT_SUBSCRIBED')));
    expect(summary(removed)).toEqual(['ERROR_CODE_REMOVED | old client × new host | error:NOT_SUBSCRIBED']);
    const renamed = tamper((x) => {
      const e = x.surface!.find((s) => s.key === 'error:STREAM_IN_USE')!;
      Object.assign(e, { key: 'error:STREAM_ID_IN_USE', code: 'STREAM_ID_IN_USE' });
    });
    const [f] = runStaticRules(baseline(), renamed);
    expect(f).toMatchObject({ ruleId: 'ERROR_CODE_REMOVED', subject: 'error:STREAM_IN_USE', evidence: { before: 'STREAM_IN_USE', after: 'STREAM_ID_IN_USE' } });
    const added = tamper((x) => x.surface!.push({ kind: 'error', key: 'error:TOO_MANY_STREAMS', directions: ['hostToClient'], code: 'TOO_MANY_STREAMS', source: 'host', meaning: 'over maxStreams' }));
    expect(summary(added)).toEqual([]);
  });

  it('EVENT_TYPE_REMOVED: read from the schemas, so a baseline without a surface list is judged too', () => {
    const dropTitle = (x: WireManifest) => {
      const schema = op(x, 'Metadata').schema as { anyOf: Array<{ properties: Props }> };
      schema.anyOf = schema.anyOf.filter((v) => v.properties.type!.const !== 'title');
    };
    const m = resurface(tamper(dropTitle));
    expect(summary(m)).toContain('EVENT_TYPE_REMOVED | old client × new host | event:title');
    expect(runStaticRules(withoutSurface(baseline()), m).map((f) => f.ruleId)).toContain('EVENT_TYPE_REMOVED');
  });

  it('FLAG_VALUE_CHANGED: a changed meaning breaks both skews; a removed value breaks the new reader', () => {
    const flag = (x: WireManifest, key: string) => x.surface!.find((e) => e.key === key)!;
    const changed = tamper((x) => Object.assign(flag(x, 'flag:InputAck.1'), { status: 'resend' }));
    expect(summary(changed).sort()).toEqual(['FLAG_VALUE_CHANGED | new client × old host | flag:InputAck.1', 'FLAG_VALUE_CHANGED | old client × new host | flag:InputAck.1']);
    const removed = tamper((x) => (x.surface = x.surface!.filter((e) => e.key !== 'flag:InputAck.2')));
    expect(summary(removed)).toEqual(['FLAG_VALUE_CHANGED | new client × old host | flag:InputAck.2']);
    const reworded = tamper((x) => Object.assign(flag(x, 'flag:InputAck.1'), { meaning: 'may have been written; do not resend' }));
    expect(summary(reworded)).toEqual([]);
  });

  it('OPCODE_GATING_CHANGED: ungated breaks old readers; moved to another capability breaks both', () => {
    const ungated = tamper((x) => (op(x, 'SetOutputPaused').gatedBy = null));
    expect(summary(ungated)).toEqual(['OPCODE_GATING_CHANGED | new client × old host | SetOutputPaused']);
    const moved = tamper((x) => (op(x, 'WriteUnavailable').gatedBy = 'inputAck'));
    expect(summary(moved).sort()).toEqual(['OPCODE_GATING_CHANGED | new client × old host | WriteUnavailable', 'OPCODE_GATING_CHANGED | old client × new host | WriteUnavailable']);
  });

  it('a baseline without a surface list (v0.1.0): the rules skip what it cannot tell, and the notes say so', () => {
    const old = withoutSurface(baseline());
    expect(runStaticRules(old, baseline())).toEqual([]);
    // Removing an error code or a flag cannot be judged against it, and nothing crashes.
    const current = tamper((x) => (x.surface = x.surface!.filter((e) => e.kind !== 'error' && e.kind !== 'flag')));
    expect(runStaticRules(old, current)).toEqual([]);
    const [note, ...more] = surfaceNotes(old, baseline());
    expect(more).toEqual([]);
    expect(note).toContain('flag entries and error entries were not compared');
    expect(surfaceNotes(baseline(), baseline())).toEqual([]);
  });

  it('a promised host limit lowered is LIMIT_LOWERED for old clients, a client delay lowered for old hosts; raising either is free', () => {
    const lowered = tamper((m) => {
      m.limits!.host.maxStreamsPerConnection!.value = 8;
      m.limits!.client.reconnectInitialDelayMs!.value = 0;
    });
    expect(summary(lowered)).toEqual(['LIMIT_LOWERED | old client × new host | host.maxStreamsPerConnection', 'LIMIT_LOWERED | new client × old host | client.reconnectInitialDelayMs']);
    const raised = tamper((m) => {
      m.limits!.host.maxStreamsPerConnection!.value = 128;
      m.limits!.client.reconnectInitialDelayMs!.value = 250;
    });
    expect(summary(raised)).toEqual([]);
  });

  it('a promise the baseline made that the working tree no longer lists is LIMIT_LOWERED too (a row deleted, an option renamed)', () => {
    const dropped = tamper((m) => void delete m.limits!.host.detachedTerminalIdleMs);
    expect(summary(dropped)).toEqual(['LIMIT_LOWERED | old client × new host | host.detachedTerminalIdleMs']);
  });

  it('limits only one build lists are not compared: a new floor, or a baseline without the list', () => {
    const newFloor = tamper((m) => void (m.limits!.host.someNewLimit = { value: 1, floor: 'new' }));
    expect(runStaticRules(baseline(), newFloor)).toEqual([]);
    const { limits: _gone, ...withoutLimits } = baseline();
    expect(runStaticRules(withoutLimits, tamper((m) => void (m.limits!.host.maxTerminals!.value = 1)))).toEqual([]);
  });

  it('every active static rule in the catalog runs, and ids are unique', () => {
    expect(STATIC_PASS.map((r) => r.id)).toEqual(activeRules('static').map((r) => r.id));
    expect(new Set(RULE_CATALOG.map((r) => r.id)).size).toBe(RULE_CATALOG.length);
  });

  it('the manifest carries optional fields as not required (io: input)', () => {
    const fields = schemaFields(op(baseline(), 'SnapshotStart').schema);
    expect(fields.get('kind')?.required).toBe(true);
    expect(fields.get('requestId')?.required).toBe(false);
  });
});
