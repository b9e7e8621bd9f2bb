import type { Observation } from './observed-state.js';
import type { ClientLabel, FrameDirection, ProxiedFrame } from './recording-proxy.js';

/**
 * The few wire v1 facts barriers wait on, written down here on purpose: they
 * are the protocol's permanent meaning (opcode numbers never move, InputAck's
 * flag bytes never change meaning), so a working tree that changes them must
 * fail the journey, which reading them from its own tables would hide.
 */
export const WIRE = {
  opcode: { Output: 1, SnapshotStart: 2, SnapshotEnd: 4, Resized: 5, Error: 6, Input: 7, Resize: 8, Subscribe: 9, Unsubscribe: 10, SnapshotRequest: 11, Metadata: 12, Ack: 13, SetOutputPaused: 16, WriteUnavailable: 17, InputAck: 18 },
  inputAckFlag: { deliveryUnknown: 1, resend: 2 },
  headerBytes: 16,
} as const;

const utf8 = new TextDecoder();

export const payloadText = (f: ProxiedFrame): string => utf8.decode(f.bytes.subarray(WIRE.headerBytes));

/** A Metadata frame's event type, read without any build's codec. */
export function eventType(f: ProxiedFrame): string | undefined {
  if (f.opcode !== WIRE.opcode.Metadata) return undefined;
  try {
    const type = (JSON.parse(payloadText(f)) as { type?: unknown }).type;
    return typeof type === 'string' ? type : undefined;
  } catch {
    return undefined;
  }
}

/** The InputAck flag byte; undefined when absent (applied). */
export const inputAckFlag = (f: ProxiedFrame): number | undefined => (f.bytes.length > WIRE.headerBytes ? f.bytes[WIRE.headerBytes] : undefined);

export interface FrameWanted {
  readonly client: ClientLabel;
  readonly direction: FrameDirection;
  readonly opcode: number;
  readonly where?: (f: ProxiedFrame) => boolean;
}

/** Undefined once the proxy has forwarded such a frame since the step began; else what is missing. */
export function sawSinceStep(o: Observation, before: Observation, wanted: FrameWanted, what: string): string | undefined {
  const found = o.wire.slice(before.wireCount).some((f) => f.fault !== 'dropped' && f.client === wanted.client && f.direction === wanted.direction && f.opcode === wanted.opcode && (wanted.where?.(f) ?? true));
  return found ? undefined : what;
}

/** Undefined once the host has sent `who` an Error with this code ("CODE: message") since the step began; else `what`. */
export const sawErrorSinceStep = (o: Observation, before: Observation, who: ClientLabel, code: string, what: string): string | undefined =>
  sawSinceStep(o, before, { client: who, direction: 'hostToClient', opcode: WIRE.opcode.Error, where: (f) => payloadText(f).startsWith(`${code}:`) }, what);

/**
 * Undefined once the host has answered every sequenced Input the primary
 * client sent since the step began: an InputAck (applied or delivery unknown)
 * whose seq reaches the last of them. A step that ends before that leaves the
 * trailing InputAcks to the next step, in some runs and not others. Input the
 * proxy dropped or wrote itself is the step's own business.
 */
export function sequencedInputAnswered(o: Observation, before: Observation): string | undefined {
  const since = o.wire.slice(before.wireCount).filter((f) => f.client === 'primary');
  const sent = since.filter((f) => f.direction === 'clientToHost' && f.opcode === WIRE.opcode.Input && f.seq > 0 && f.fault === undefined);
  if (sent.length === 0) return undefined;
  const last = Math.max(...sent.map((f) => f.seq));
  const answered = since.some((f) => f.direction === 'hostToClient' && f.opcode === WIRE.opcode.InputAck && f.seq >= last && inputAckFlag(f) !== WIRE.inputAckFlag.resend);
  return answered ? undefined : `an InputAck reaching input seq ${last}`;
}

/**
 * Undefined once every SnapshotRequest the primary client sent since the step
 * began has its snapshot (one carrying a requestId); a client that sent none
 * owes nothing. A barrier that waited for "the" answer would stall on a
 * client that no longer asks because another snapshot already repaints it.
 */
export function snapshotRequestsAnswered(o: Observation, before: Observation): string | undefined {
  const asked = o.wire.slice(before.wireCount).filter((f) => f.client === 'primary' && f.direction === 'clientToHost' && f.opcode === WIRE.opcode.SnapshotRequest && f.fault === undefined).length;
  const answered = o.client.snapshots.slice(before.client.snapshots.length).filter((s) => s.requestId).length;
  return answered >= asked ? undefined : `a snapshot answering each of the ${asked} SnapshotRequest(s) the client sent in this step (${answered} so far)`;
}

/**
 * Undefined once the host has repainted the primary client's stream after the
 * client's last un-pause in this step (SetOutputPaused {paused: false}), where
 * outputPause is negotiated: a reveal's repaint comes whether or not the client
 * also asks for a snapshot, and a step that does not wait for it lets it fall
 * in the next step on a busy machine.
 */
export function unpauseRepainted(o: Observation, before: Observation): string | undefined {
  if (!o.client.negotiated?.outputPause) return undefined;
  const since = o.wire.slice(before.wireCount).filter((f) => f.client === 'primary' && f.fault === undefined);
  const isUnpause = (f: ProxiedFrame) => f.direction === 'clientToHost' && f.opcode === WIRE.opcode.SetOutputPaused && /"paused":\s*false/.test(payloadText(f));
  const lastUnpause = since.map(isUnpause).lastIndexOf(true);
  if (lastUnpause < 0) return undefined;
  return since.slice(lastUnpause + 1).some((f) => f.direction === 'hostToClient' && f.opcode === WIRE.opcode.SnapshotEnd) ? undefined : "the host's repaint of the stream the reveal un-paused";
}

/** A JSON payload's object, read without any build's codec; undefined when it is not one. */
function payloadObject(f: ProxiedFrame): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(payloadText(f));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Undefined once the primary client's resubscription is repainted or
 * resumed: a host that echoed outputResume and answered the Subscribe's
 * resume point with `resume: 'resumed'` replays the output the client missed
 * and sends no snapshot; every other answer (no point asked, another outcome,
 * a host without the capability) comes with a snapshot.
 */
export function resumedOrRepainted(o: Observation, before: Observation, snapshotWhat: string): string | undefined {
  const since = o.wire.slice(before.wireCount).filter((f) => f.client === 'primary' && f.fault !== 'dropped');
  const resumed = since.some((f) => f.direction === 'hostToClient' && eventType(f) === 'subscribed' && payloadObject(f)?.resume === 'resumed');
  if (resumed) return undefined;
  return o.client.snapshots.length > before.client.snapshots.length ? undefined : snapshotWhat;
}

/** A client-to-host frame built by hand (wire v1 header, UTF-8 payload), for the proxy to inject. */
export function handmadeFrame(opcode: number, streamId: number, text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const bytes = new Uint8Array(WIRE.headerBytes + payload.length);
  const view = new DataView(bytes.buffer);
  bytes[0] = 0x74;
  bytes[1] = 1;
  bytes[2] = opcode;
  view.setUint32(4, streamId, true);
  bytes.set(payload, WIRE.headerBytes);
  return bytes;
}

/**
 * Undefined once the client has acknowledged every Output byte the host sent
 * it on its newest connection (the sum of Ack.bytes reaches the Output payload
 * bytes): nothing is in flight, so the host's credit is its whole window. A
 * client that acknowledges more than it got passes here and is judged by the
 * Ack.bytes comparison; one that acknowledges less never gets here.
 */
export function outputAllAcknowledged(o: Observation, who: ClientLabel): string | undefined {
  const mine = o.wire.filter((f) => f.client === who && f.fault !== 'dropped');
  const connection = Math.max(0, ...mine.map((f) => f.connection));
  let sent = 0;
  let acked = 0;
  for (const f of mine) {
    if (f.connection !== connection) continue;
    if (f.direction === 'hostToClient' && f.opcode === WIRE.opcode.Output) sent += f.bytes.length - WIRE.headerBytes;
    else if (f.direction === 'clientToHost' && f.opcode === WIRE.opcode.Ack) acked += Number((JSON.parse(payloadText(f)) as { bytes?: unknown }).bytes) || 0;
  }
  return acked >= sent ? undefined : `every Output byte acknowledged (${acked} of ${sent} on connection ${connection})`;
}

export const inputFrame = (streamId: number, text: string) => handmadeFrame(WIRE.opcode.Input, streamId, text);
