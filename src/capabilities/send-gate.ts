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

/** A gated frame the send gate dropped in 'drop' mode: which, why, and the code that tried to send it. */
export interface UngatedSend {
  readonly opcode: number;
  readonly opcodeName: string;
  readonly capability: string;
  readonly streamId: number;
  /** The innermost stack frames of the send, below the gate, innermost first. */
  readonly site: string;
}

/** How many dropped sends this process remembers: the first ones name the site; the rest only add to the count. */
export const UNGATED_SEND_LOG_LIMIT = 32;
const ungatedSendLog: UngatedSend[] = [];
let ungatedSendCount = 0;

/** What the send gates of this process dropped so far (the first UNGATED_SEND_LOG_LIMIT), and how many in all; the compat gate reports them. */
export function ungatedSends(): { readonly first: readonly UngatedSend[]; readonly count: number } {
  return { first: [...ungatedSendLog], count: ungatedSendCount };
}

/** Starts the record of dropped sends afresh: a process that serves one session after another (the gate's long-lived peers) reports each session's own. */
export function forgetUngatedSends(): void {
  ungatedSendLog.length = 0;
  ungatedSendCount = 0;
}

/**
 * How many frames below the gate a site names: a send that goes through a
 * queue's closure (`HostStream.send < (closure) < HostStream.event`) names the
 * feature's method only in the fourth.
 */
const SITE_FRAMES = 5;

/** Frames of the current stack that are not the gate's own, without the build's directory; an anonymous frame in parentheses. */
function sendSite(stack: string | undefined): string {
  const frames = (stack ?? '').split('\n').slice(1).map((l) => l.trim().replace(/^at /, ''));
  const outside = frames.filter((f) => !/send-gate\.(js|ts)/.test(f));
  return outside
    .slice(0, SITE_FRAMES)
    .map((f) => f.replace(/(file:\/\/)?\/\S*?\/((dist\/)?(src|compat|test)\/)/, '$2'))
    .map((f) => (f.endsWith(')') ? f : `(${f})`))
    .join(' < ');
}

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
    ungatedSendCount++;
    if (ungatedSendLog.length < UNGATED_SEND_LOG_LIMIT) ungatedSendLog.push({ opcode, opcodeName: opcodeName(opcode), capability, streamId: this.streamId, site: sendSite(new Error().stack) });
    return false;
  }
}

/** The receiving side of Rule 2: act on a gated frame only from a stream that negotiated it. */
export function receivedFrameAllowed(opcode: number, negotiated: CapabilitySet | undefined): boolean {
  const capability = opcodeSpec(opcode)?.gatedBy;
  return !capability || (negotiated?.[capability] ?? 0) >= 1;
}
