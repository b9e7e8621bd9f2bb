import { describe, expect, it } from 'vitest';
import { skippedStepNotes } from '../../compat/report/skipped-steps.js';

describe('notes on journey steps no pairing walked', () => {
  it('names every skipped step once, grouped by why', () => {
    const cannotResize = "the old build's client peer (0.1.0, peer protocol 1) cannot 'resize'";
    const cannotLimits = "the old build's host peer (0.1.0, peer protocol 1) cannot 'limits'";
    const notes = skippedStepNotes(new Map([['resize', cannotResize], ['limitsReached', cannotLimits], ['claimViewport', cannotResize]]));
    expect(notes).toEqual([`journey steps resize, claimViewport skipped in every pairing: ${cannotResize}`, `journey step limitsReached skipped in every pairing: ${cannotLimits}`]);
  });

  it('says nothing when every step ran', () => {
    expect(skippedStepNotes(new Map())).toEqual([]);
  });
});
