import { describe, expect, it } from 'vitest';
import { activeRules, RULE_CATALOG } from '../../compat/rules/catalog.js';
import { runStaticRules, STATIC_RULES } from '../../compat/rules/static/run-static.js';
import { schemaFields } from '../../src/manifest/schema-fields.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import type { ManifestOpcode, WireManifest } from '../../src/manifest/manifest-schema.js';

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
    const m = tamper((x) => x.opcodes.push({ ...op(x, 'WriteUnavailable'), code: 19, name: 'Bell', gatedBy: 'writeUnavailable' }));
    expect(summary(m)).toEqual([]);
  });

  it('OPCODE_NUMBER_REUSED: a renamed number breaks both directions', () => {
    const m = tamper((x) => Object.assign(op(x, 'ClaimViewport'), { name: 'Focus' }));
    // Old clients write 14 to new hosts, new clients write 14 to old hosts: each reads the wrong opcode.
    expect(summary(m).sort()).toEqual(['OPCODE_NUMBER_REUSED | new client × old host | opcode 14', 'OPCODE_NUMBER_REUSED | old client × new host | opcode 14']);
    // Reused for a host frame: old clients write 14 to new hosts, new hosts write 14 to old clients.
    const flipped = tamper((x) => Object.assign(op(x, 'ClaimViewport'), { name: 'Bell', direction: 'hostToClient' }));
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
    const hostOp = tamper((x) => x.opcodes.push({ ...op(x, 'Output'), code: 19, name: 'Bell' }));
    expect(summary(hostOp)).toEqual(['OPCODE_NEW_UNGATED | old client × new host | Bell']);
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

  it('every active static rule in the catalog runs, and ids are unique', () => {
    expect(Object.keys(STATIC_RULES).sort()).toEqual(activeRules('static').map((r) => r.id).sort());
    expect(new Set(RULE_CATALOG.map((r) => r.id)).size).toBe(RULE_CATALOG.length);
  });

  it('the manifest carries optional fields as not required (io: input)', () => {
    const fields = schemaFields(op(baseline(), 'SnapshotStart').schema);
    expect(fields.get('kind')?.required).toBe(true);
    expect(fields.get('requestId')?.required).toBe(false);
  });
});
