/**
 * Things a host can do wrong that the client survives. Each is reported as a
 * `problem` event with one of these stable codes and counted; none is fatal.
 */
export const CLIENT_PROBLEM_CODES = {
  UNKNOWN_OPCODE: 'a frame with an opcode this build does not know (number, stream and seq reported)',
  BAD_FRAME: 'a frame or payload that failed to decode',
  WRONG_DIRECTION: 'a client-to-host opcode arrived from the host',
  UNKNOWN_STREAM: 'a frame for a stream id this client has not subscribed',
  UNGATED_FRAME: 'a gated opcode on a stream that did not negotiate its capability',
  SNAPSHOT_CHUNK_WITHOUT_START: 'SnapshotChunk or SnapshotEnd with no SnapshotStart before it',
  SNAPSHOT_TOO_LARGE: 'a snapshot above maxSnapshotBytes; abandoned',
  SNAPSHOT_RESTARTED: 'a SnapshotStart while another snapshot was still open; the open one is abandoned',
  OUTPUT_GAP: 'Output whose seq does not continue the last known seq; a snapshot was requested',
  SCREEN_OVERRUN: 'the local screen refused output (too much pending in xterm); a snapshot was requested',
  INPUT_REFUSED: 'input held while not subscribed would pass maxHeldInputBytes; refused',
} as const;

export type ClientProblemCode = keyof typeof CLIENT_PROBLEM_CODES;

export interface ClientProblem {
  readonly code: ClientProblemCode;
  readonly message: string;
  readonly streamId?: number;
  readonly opcode?: number;
  readonly seq?: number;
}
