import type { z } from 'zod';
import type { CapabilityName } from '../capabilities/registry.js';
import { metadataSchema } from './events.js';
import * as s from './schemas.js';

export type Direction = 'hostToClient' | 'clientToHost';

export type PayloadSpec =
  | { readonly kind: 'text' }
  | { readonly kind: 'empty' }
  | { readonly kind: 'flag' }
  | { readonly kind: 'json'; readonly schema: z.ZodType };

export interface OpcodeSpec {
  readonly code: number;
  readonly name: string;
  readonly direction: Direction;
  readonly payload: PayloadSpec;
  /** Sent only on a stream whose subscribe negotiated this capability (Rule 2). */
  readonly gatedBy?: CapabilityName;
  /** The wire version the opcode came in. */
  readonly since: number;
  /** A retired opcode stays here so its number is never reused. */
  readonly retired?: boolean;
  /** What `seq` means on this opcode. */
  readonly seqMeaning: string;
  readonly summary: string;
}

const text = { kind: 'text' } as const;
const empty = { kind: 'empty' } as const;
const json = <T extends z.ZodType>(schema: T) => ({ kind: 'json', schema }) as const;

/**
 * The one table of the wire. Everything else (name lookup, the decoder's known
 * set, payload schemas, the table in docs/protocol.md, the manifest the gate
 * diffs) is derived from it. Numbers are permanent: see fixtures/wire-history.json.
 */
export const OPCODES = {
  Output: { code: 1, name: 'Output', direction: 'hostToClient', payload: text, since: 1, seqMeaning: 'output high-water mark after this frame', summary: 'terminal output, UTF-8' },
  SnapshotStart: { code: 2, name: 'SnapshotStart', direction: 'hostToClient', payload: json(s.snapshotStartSchema), since: 1, seqMeaning: 'output high-water mark the snapshot covers', summary: 'begins a snapshot: {kind, cols, rows, requestId?, seq?, source? or cause?, truncated?}' },
  SnapshotChunk: { code: 3, name: 'SnapshotChunk', direction: 'hostToClient', payload: text, since: 1, seqMeaning: 'as SnapshotStart', summary: 'serialised screen, at most 48 KiB per chunk' },
  SnapshotEnd: { code: 4, name: 'SnapshotEnd', direction: 'hostToClient', payload: empty, since: 1, seqMeaning: 'as SnapshotStart', summary: 'ends a snapshot' },
  Resized: { code: 5, name: 'Resized', direction: 'hostToClient', payload: json(s.resizedSchema), since: 1, seqMeaning: 'output high-water mark at the resize', summary: 'the terminal size changed: {cols, rows, reason?, seq?}' },
  Error: { code: 6, name: 'Error', direction: 'hostToClient', payload: text, since: 1, seqMeaning: 'unused (0)', summary: 'an error with a stable code: "CODE: message"' },
  Input: { code: 7, name: 'Input', direction: 'clientToHost', payload: text, since: 1, seqMeaning: 'input sequence number; 0 is unsequenced', summary: 'keystrokes or pasted text, UTF-8' },
  Resize: { code: 8, name: 'Resize', direction: 'clientToHost', payload: json(s.viewportSchema), since: 1, seqMeaning: 'unused (0)', summary: 'asks for a terminal size: {cols, rows}' },
  Subscribe: { code: 9, name: 'Subscribe', direction: 'clientToHost', payload: json(s.subscribeSchema), since: 1, seqMeaning: 'unused (0)', summary: 'attaches a terminal to a new stream (sent on stream 0)' },
  Unsubscribe: { code: 10, name: 'Unsubscribe', direction: 'clientToHost', payload: empty, since: 1, seqMeaning: 'unused (0)', summary: 'detaches the stream' },
  SnapshotRequest: { code: 11, name: 'SnapshotRequest', direction: 'clientToHost', payload: json(s.snapshotRequestSchema), since: 1, seqMeaning: 'unused (0)', summary: 'asks for a snapshot: {requestId?, scrollbackRows?}' },
  Metadata: { code: 12, name: 'Metadata', direction: 'hostToClient', payload: json(metadataSchema), since: 1, seqMeaning: 'output high-water mark', summary: 'control events: subscribed, title, exit, unsubscribed' },
  Ack: { code: 13, name: 'Ack', direction: 'clientToHost', payload: json(s.ackSchema), since: 1, seqMeaning: 'unused (0)', summary: 'output consumed: {bytes}' },
  ClaimViewport: { code: 14, name: 'ClaimViewport', direction: 'clientToHost', payload: json(s.viewportSchema), since: 1, seqMeaning: 'unused (0)', summary: 'this client drives the terminal size: {cols, rows}' },
  OutputSpan: { code: 15, name: 'OutputSpan', direction: 'hostToClient', payload: json(s.outputSpanSchema), since: 1, seqMeaning: 'output high-water mark after this span', summary: 'output with its raw length: {data, rawLength, transformed}' },
  SetOutputPaused: { code: 16, name: 'SetOutputPaused', direction: 'clientToHost', payload: json(s.setOutputPausedSchema), gatedBy: 'outputPause', since: 1, seqMeaning: 'unused (0)', summary: 'pauses or resumes output of a hidden pane: {paused}' },
  WriteUnavailable: { code: 17, name: 'WriteUnavailable', direction: 'hostToClient', payload: empty, gatedBy: 'writeUnavailable', since: 1, seqMeaning: 'unused (0)', summary: 'the terminal refuses writes' },
  InputAck: { code: 18, name: 'InputAck', direction: 'hostToClient', payload: { kind: 'flag' }, gatedBy: 'inputAck', since: 1, seqMeaning: "host's cumulative applied input sequence", summary: 'input acknowledgement; flag byte: absent applied, 1 delivery unknown, 2 resend after seq' },
} as const satisfies Record<string, OpcodeSpec>;

export type OpcodeName = keyof typeof OPCODES;
export type OpcodeCode = (typeof OPCODES)[OpcodeName]['code'];

/** Opcode numbers by name, for readable logic: `Op.Output` rather than `1`. */
export const Op = Object.fromEntries(Object.values(OPCODES).map((o) => [o.name, o.code])) as {
  readonly [K in OpcodeName]: (typeof OPCODES)[K]['code'];
};

const byCode: ReadonlyArray<OpcodeSpec | undefined> = (() => {
  const table: Array<OpcodeSpec | undefined> = new Array(256).fill(undefined);
  for (const spec of Object.values(OPCODES) as OpcodeSpec[]) {
    if (table[spec.code]) throw new Error(`opcode ${spec.code} is listed twice`);
    table[spec.code] = spec;
  }
  return table;
})();

/** The spec of a known opcode, or undefined. Retired opcodes are not known to the decoder. */
export function opcodeSpec(code: number): OpcodeSpec | undefined {
  const spec = byCode[code];
  return spec && !spec.retired ? spec : undefined;
}

export function opcodeName(code: number): string {
  return byCode[code]?.name ?? `unknown(${code})`;
}

export function allOpcodes(): readonly OpcodeSpec[] {
  return byCode.filter((s): s is OpcodeSpec => s !== undefined);
}
