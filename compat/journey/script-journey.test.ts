import { describe, expect, it } from 'vitest';
import { SCRIPT_STEP_NAMES } from '../recording.js';
import { JOURNEY } from './script-journey.js';

describe('the scripted journey', () => {
  it('walks each step under its own name, in the order SCRIPT_STEP_NAMES gives (a step filed under another name would record its frames under the wrong one)', () => {
    expect(JOURNEY.map((step) => step.name)).toEqual([...SCRIPT_STEP_NAMES]);
  });
});
