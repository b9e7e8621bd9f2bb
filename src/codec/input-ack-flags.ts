/**
 * InputAck's flag byte, one row per value: `byte` null means no payload at
 * all. A value that shipped keeps its meaning forever; the manifest lists this
 * table and the gate fails a value whose status changed or that disappeared.
 */
export const INPUT_ACK_FLAGS = [
  { byte: null, status: 'applied', since: 1, meaning: 'every input up to seq was written to the terminal' },
  { byte: 1, status: 'deliveryUnknown', since: 1, meaning: 'the write of seq may have reached the terminal: never resend it' },
  { byte: 2, status: 'resend', since: 1, meaning: 'nothing after seq was written: resend everything after seq' },
] as const;

export type InputAckFlagStatus = (typeof INPUT_ACK_FLAGS)[number]['status'];

/** What InputAck's flag byte says. An unrecognised byte is reported, so the caller can act conservatively. */
export type InputAckStatus = { readonly status: InputAckFlagStatus } | { readonly status: 'unrecognized'; readonly flag: number };

const byStatus = new Map<string, number | null>(INPUT_ACK_FLAGS.map((f) => [f.status, f.byte]));
const byByte = new Map<number | null, InputAckFlagStatus>(INPUT_ACK_FLAGS.map((f) => [f.byte, f.status]));

/** The payload bytes of an InputAck saying `status`. */
export function encodeInputAckFlag(ack: InputAckStatus): Uint8Array {
  const byte = ack.status === 'unrecognized' ? ack.flag : byStatus.get(ack.status)!;
  return byte === null ? new Uint8Array(0) : Uint8Array.of(byte);
}

export function decodeInputAckFlag(bytes: Uint8Array): InputAckStatus {
  const byte = bytes.length === 0 ? null : bytes[0]!;
  const status = byByte.get(byte);
  return status !== undefined ? { status } : { status: 'unrecognized', flag: byte! };
}
