import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { WireManifest } from '../../src/manifest/manifest-schema.js';
import { behaviourFindings, measureBehaviour } from '../../compat/coverage/behaviour.js';
import type { PairingRecording } from '../../compat/recording.js';

// A stand-in for the reviewed list, so the test does not depend on what it holds today.
vi.mock('../../compat/coverage/behaviour-exemptions.js', () => ({ BEHAVIOUR_EXEMPTIONS: { 'input.stalled': 'a stand-in reason' } }));

const CAPS = { ackOutput: 1, outputPause: 1, writeUnavailable: 1, inputAck: 1, snapshotCause: 1 };
const bare: PairingRecording = { client: 'new', host: 'new', clientVersion: '0', hostVersion: '0', steps: [], frames: [], advertised: { client: CAPS, host: CAPS }, negotiated: CAPS, input: { typed: '', reachedTerminal: '' }, screens: { client: '', host: '' }, peerErrors: [] };

describe('behaviour exemptions', () => {
  it('count an exempt item apart, never as reached, and raise no finding for it', () => {
    const manifest = JSON.parse(execFileSync(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'termwire.js'), 'manifest'], { encoding: 'utf8' })) as WireManifest;
    const report = measureBehaviour({ old: manifest, new: manifest }, { oldClientNewHost: [bare], newClientOldHost: [bare], newNew: [bare] });
    const d = report.directions[0]!;
    expect(d.exempt).toEqual(['input.stalled']);
    expect(d.conditions.exempt).toBe(1);
    expect(d.reached).not.toContain('input.stalled');
    const subjects = behaviourFindings(report).map((f) => f.subject);
    expect(subjects).not.toContain('behaviour input.stalled');
    expect(subjects).toContain('behaviour input.gapped');
  });
});
