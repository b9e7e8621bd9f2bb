import { describe, expect, it } from 'vitest';
import { snapshotContentChanged } from '../../compat/rules/dynamic/snapshot-content.js';
import { buildManifest } from '../../src/manifest/build-manifest.js';
import { editFrames, healthySet } from './helpers/recordings.js';

const manifests = () => ({ old: buildManifest('1.0.0'), new: buildManifest('1.0.0') });

describe('SNAPSHOT_CONTENT_CHANGED', () => {
  it('stays quiet when the new host serialises what the old host did', () => {
    expect(snapshotContentChanged(healthySet(), manifests())).toEqual([]);
  });

  it('names the occurrence and the first differing text when the new host changes one snapshot', () => {
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) =>
      f.opcodeName === 'SnapshotChunk' && f.occurrence === 'reveal' && typeof f.payload === 'string' ? { ...f, payload: f.payload + ' did: changed' } : f,
    );
    const findings = snapshotContentChanged(set, manifests());
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.every((f) => f.occurrence === 'reveal' && f.direction === 'old client × new host')).toBe(true);
    expect(findings[0]!.message).toContain('did:');
  });

  it('does not compare a change in the old host, which the old client already reads', () => {
    const set = editFrames(healthySet(), 'newClientOldHost', (f) =>
      f.opcodeName === 'SnapshotChunk' && typeof f.payload === 'string' ? { ...f, payload: f.payload + 'x' } : f,
    );
    expect(snapshotContentChanged(set, manifests())).toEqual([]);
  });
});
