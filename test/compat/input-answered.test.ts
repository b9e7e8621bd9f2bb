import { describe, expect, it } from 'vitest';
import type { Observation } from '../../compat/journey/observed-state.js';
import type { ProxiedFrame } from '../../compat/journey/recording-proxy.js';
import { sequencedInputAnswered, WIRE } from '../../compat/journey/wire-view.js';

const frame = (direction: ProxiedFrame['direction'], opcode: number, seq: number, extra: Partial<ProxiedFrame> = {}): ProxiedFrame =>
  ({ direction, step: 'input', bytes: new Uint8Array(WIRE.headerBytes), connection: 1, client: 'primary', opcode, streamId: 1, seq, ...extra }) as ProxiedFrame;
const input = (seq: number, extra?: Partial<ProxiedFrame>) => frame('clientToHost', WIRE.opcode.Input, seq, extra);
const ack = (seq: number, flag?: number) => {
  const f = frame('hostToClient', WIRE.opcode.InputAck, seq);
  return { ...f, bytes: flag === undefined ? f.bytes : Uint8Array.from([...f.bytes, flag]) };
};
const at = (wire: ProxiedFrame[]) => ({ wire, wireCount: wire.length }) as unknown as Observation;
const before = at([]);

describe('a step ends once its sequenced input is answered', () => {
  it('waits for the InputAck that reaches the last input the client sent in the step', () => {
    expect(sequencedInputAnswered(at([input(7), input(8), ack(7)]), before)).toBe('an InputAck reaching input seq 8');
    expect(sequencedInputAnswered(at([input(7), input(8), ack(7), ack(8)]), before)).toBeUndefined();
  });

  it('takes delivery unknown as an answer, and a resend request as none', () => {
    expect(sequencedInputAnswered(at([input(3), ack(3, WIRE.inputAckFlag.deliveryUnknown)]), before)).toBeUndefined();
    expect(sequencedInputAnswered(at([input(3), ack(3, WIRE.inputAckFlag.resend)]), before)).toBeDefined();
  });

  it('leaves unsequenced input and what the proxy dropped or wrote itself to the step', () => {
    expect(sequencedInputAnswered(at([input(0)]), before)).toBeUndefined();
    expect(sequencedInputAnswered(at([input(4, { fault: 'dropped' }), input(5, { fault: 'injected' })]), before)).toBeUndefined();
  });
});
