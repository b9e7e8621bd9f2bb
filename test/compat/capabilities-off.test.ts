import { describe, expect, it } from 'vitest';
import { capabilityOffSchedules, switchableCapabilities } from '../../compat/explore/capabilities-off.js';
import { MOVES } from '../../compat/explore/moves.js';
import { WITHOUT_MOVE } from '../../compat/explore/schedule.js';
import { withheldFromSubscribe } from '../../compat/journey/withheld-capability.js';
import { DEFAULT_CLIENT_CAPABILITIES, DEFAULT_HOST_CAPABILITIES } from '../../src/capabilities/defaults.js';
import { encodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';
import { encodePayload } from '../../src/codec/payload.js';

const thisBuild = { client: DEFAULT_CLIENT_CAPABILITIES, host: DEFAULT_HOST_CAPABILITIES };

describe('the journeys with one capability off', () => {
  it('switch off, one at a time, each capability that both builds negotiate, and no other', () => {
    const older = { client: { ackOutput: 1, outputPause: 1 }, host: { ackOutput: 1, inputAck: 1 } };
    expect(switchableCapabilities([thisBuild, older])).toEqual(['ackOutput']);
    expect(switchableCapabilities([thisBuild, thisBuild])).toEqual(Object.keys(DEFAULT_CLIENT_CAPABILITIES).sort());
  });

  it('walk a schedule for every capability this build advertises, each starting with its without: move', () => {
    const names = switchableCapabilities([thisBuild, thisBuild]);
    const schedules = capabilityOffSchedules(names);
    expect(schedules.map((s) => [s.capabilityOff, s.moves[0]])).toEqual(names.map((n) => [n, `${WITHOUT_MOVE}${n}`]));
    // Beyond subscribe, the initial snapshot and the unsubscribe: each walks something its capability changes.
    for (const s of schedules) expect(s.steps.length, s.moves.join(' ')).toBeGreaterThan(4);
    expect(new Set(schedules.map((s) => s.seed)).size).toBe(schedules.length);
  });

  it('give a capability without a row every move explore has, a new opcode\'s move included', () => {
    const [schedule] = capabilityOffSchedules(['bell']);
    expect(schedule!.moves).toEqual([`${WITHOUT_MOVE}bell`, ...MOVES.map((m) => m.name)]);
  });
});

describe('withheldFromSubscribe', () => {
  const subscribe = (payload: object) => encodeFrame({ opcode: Op.Subscribe, streamId: 0, seq: 7, payload: encodePayload('Subscribe', payload as never) });
  const payloadOf = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes.subarray(16)));

  it('leaves the capability out of a Subscribe, and keeps its header and every other field', () => {
    const sent = subscribe({ streamId: 3, terminal: 'main', cols: 80, rows: 24, capabilities: { ackOutput: 1, inputAck: 1 } });
    const heard = withheldFromSubscribe(sent, 'inputAck');
    expect(payloadOf(heard)).toEqual({ streamId: 3, terminal: 'main', cols: 80, rows: 24, capabilities: { ackOutput: 1 } });
    expect([...heard.subarray(0, 16)]).toEqual([...sent.subarray(0, 16)]);
  });

  it('passes any other frame, and a Subscribe without the capability, unchanged', () => {
    const input = encodeFrame({ opcode: Op.Input, streamId: 1, seq: 1, payload: new TextEncoder().encode('{"capabilities":{"inputAck":1}}') });
    expect(withheldFromSubscribe(input, 'inputAck')).toBe(input);
    const without = subscribe({ streamId: 3, terminal: 'main', capabilities: { ackOutput: 1 } });
    expect(withheldFromSubscribe(without, 'inputAck')).toBe(without);
  });
});
