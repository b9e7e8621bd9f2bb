import { describe, expect, it } from 'vitest';
import { skippedStepNotes } from '../../compat/report/skipped-steps.js';

describe('notes on journey steps no pairing walked', () => {
  it('names, once per build, the steps its peers cannot drive and the ops they lack', () => {
    const notes = skippedStepNotes('v0.1.0', [{ side: 'old', version: '0.1.0', peerProtocol: 1, steps: ['resize', 'claimViewport', 'limitsReached'], lackingOps: ['resize', 'claimViewport', 'limits'] }]);
    expect(notes).toEqual(["v0.1.0 cannot drive: resize, claimViewport, limitsReached (its peers, peer protocol 1, lack 'resize', 'claimViewport', 'limits'); every pairing skips these steps"]);
  });

  it('blames the working tree when its own peers lack an op', () => {
    expect(skippedStepNotes('v0.2.0', [{ side: 'new', version: '0.3.0', peerProtocol: 3, steps: ['resize'], lackingOps: ['resize'] }])[0]).toMatch(/^the working tree \(0\.3\.0\) cannot drive: resize/);
  });

  it('says nothing when every step ran', () => {
    expect(skippedStepNotes('v0.1.0', [])).toEqual([]);
  });
});
