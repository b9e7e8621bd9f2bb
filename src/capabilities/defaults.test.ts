import { describe, expect, it } from 'vitest';
import { advertisedByDefault, DEFAULT_CLIENT_CAPABILITIES, DEFAULT_HOST_CAPABILITIES } from './defaults.js';
import { CAPABILITY_NAMES, type CapabilitySpec } from './registry.js';

const row = (over: Partial<CapabilitySpec> = {}): CapabilitySpec => ({ since: 1, gatesOpcodes: [], gatesFields: [], purpose: 'test', ...over });

describe('the default capabilities follow from the registry', () => {
  it('advertises every registered capability at version 1 but one registered with advertised: false', () => {
    expect(advertisedByDefault({ done: row(), unfinished: row({ advertised: false }) })).toEqual({ done: 1 });
  });

  it("this build's host and client advertise every capability of its registry (none is registered unadvertised today)", () => {
    expect(Object.keys(DEFAULT_HOST_CAPABILITIES)).toEqual(CAPABILITY_NAMES);
    expect(DEFAULT_CLIENT_CAPABILITIES).toEqual(DEFAULT_HOST_CAPABILITIES);
  });
});
