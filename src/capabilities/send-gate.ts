import { opcodeName, opcodeSpec } from '../codec/opcodes.js';
import type { CapabilitySet } from './registry.js';

/** Thrown in strict mode (tests) when code tries to send a gated opcode the stream did not negotiate. */
export class UngatedSendError extends Error {
  override readonly name = 'UngatedSendError';
  readonly code = 'UNGATED_SEND' as const;
  constructor(readonly opcode: number, readonly capability: string, readonly streamId: number) {
    super(`UNGATED_SEND: ${opcodeName(opcode)} (${opcode}) needs capability '${capability}', which stream ${streamId} did not negotiate`);
  }
}

export type SendGateMode = 'throw' | 'drop';

/**
 * Guards one stream's send path against Rule 2 mistakes: a gated opcode goes
 * out only if the stream negotiated its capability. In 'drop' mode (production)
 * a refused frame is counted and the caller is told, instead of crashing a host.
 */
export class SendGate {
  dropped = 0;
  constructor(
    readonly streamId: number,
    private negotiated: CapabilitySet,
    private readonly mode: SendGateMode = process.env.NODE_ENV === 'test' || process.env.VITEST ? 'throw' : 'drop',
  ) {}

  update(negotiated: CapabilitySet): void {
    this.negotiated = negotiated;
  }

  /** True when the frame may be sent. */
  allows(opcode: number): boolean {
    const capability = opcodeSpec(opcode)?.gatedBy;
    if (!capability || (this.negotiated[capability] ?? 0) >= 1) return true;
    if (this.mode === 'throw') throw new UngatedSendError(opcode, capability, this.streamId);
    this.dropped++;
    return false;
  }
}

/** The receiving side of Rule 2: act on a gated frame only from a stream that negotiated it. */
export function receivedFrameAllowed(opcode: number, negotiated: CapabilitySet | undefined): boolean {
  const capability = opcodeSpec(opcode)?.gatedBy;
  return !capability || (negotiated?.[capability] ?? 0) >= 1;
}
