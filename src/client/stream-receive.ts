import { receivedFrameAllowed } from '../capabilities/send-gate.js';
import type { Frame } from '../codec/header.js';
import { Op, opcodeName } from '../codec/opcodes.js';
import { decodePayloadAs } from '../codec/payload.js';
import type { Result, WireError } from '../codec/errors.js';
import type { OpcodeName } from '../codec/opcodes.js';
import type { PayloadOf } from '../codec/payload.js';
import { checkKnownEvent } from '../codec/events.js';
import type { AckBatcher } from './ack-batcher.js';
import { parseErrorText } from './output-tracker.js';
import type { ReceivingStream } from './receiving-stream.js';

/** Routes one frame addressed to `stream` (stream id != 0). Never throws on the host's input. */
export function receiveStreamFrame(stream: ReceivingStream, frame: Frame): void {
  if (!receivedFrameAllowed(frame.opcode, stream.negotiated)) {
    stream.problem({ code: 'UNGATED_FRAME', message: `${opcodeName(frame.opcode)} (${frame.opcode}) on stream ${stream.id}, which did not negotiate it`, streamId: stream.id, opcode: frame.opcode, seq: frame.seq });
    return;
  }
  switch (frame.opcode) {
    case Op.Metadata:
      return withPayload(stream, 'Metadata', frame, (event) => onMetadata(stream, event, frame));
    case Op.SnapshotStart:
      return withPayload(stream, 'SnapshotStart', frame, (meta) => report(stream, frame, stream.rx.assembler.start(meta, frame.seq)));
    case Op.SnapshotChunk:
      return withPayload(stream, 'SnapshotChunk', frame, (text) => report(stream, frame, stream.rx.assembler.chunk(text, frame.payload.length)));
    case Op.SnapshotEnd:
      return onSnapshotEnd(stream, frame);
    case Op.Output:
      return withPayload(stream, 'Output', frame, (text) => onOutput(stream, text, frame.seq, frame.payload.length));
    case Op.OutputSpan:
      return withPayload(stream, 'OutputSpan', frame, (span) => onOutput(stream, span.data, frame.seq, span.rawLength));
    case Op.Resized:
      return withPayload(stream, 'Resized', frame, (size) => {
        stream.rx.screen?.resize(size.cols, size.rows);
        stream.raise('resized', { cols: size.cols, rows: size.rows, reason: size.reason });
      });
    case Op.Error:
      return withPayload(stream, 'Error', frame, (text) => stream.raise('errorFrame', parseErrorText(text)));
    case Op.WriteUnavailable:
      return stream.raise('writeUnavailable', {});
    case Op.InputAck:
      // Reaches here only on a stream that negotiated inputAck (checked above).
      return withPayload(stream, 'InputAck', frame, (ack) => stream.inputAcked(frame.seq, ack));
    default:
      // Anything else is client-to-host.
      stream.problem({ code: 'WRONG_DIRECTION', message: `${opcodeName(frame.opcode)} (${frame.opcode}) is not a host-to-client opcode`, streamId: stream.id, opcode: frame.opcode, seq: frame.seq });
  }
}

function withPayload<N extends OpcodeName>(stream: ReceivingStream, name: N, frame: Frame, use: (value: PayloadOf<N>) => void): void {
  const decoded: Result<PayloadOf<N>, WireError> = decodePayloadAs(name, frame);
  if (!decoded.ok) {
    stream.problem({ code: 'BAD_FRAME', message: decoded.error.message, streamId: frame.streamId, opcode: frame.opcode, seq: frame.seq });
    return;
  }
  use(decoded.value);
}

function report(stream: ReceivingStream, frame: Frame, problem: ReturnType<ReceivingStream['rx']['assembler']['start']>): void {
  if (problem) stream.problem({ ...problem, streamId: stream.id, opcode: frame.opcode, seq: frame.seq });
}

function onMetadata(stream: ReceivingStream, event: PayloadOf<'Metadata'>, frame: Frame): void {
  const checked = checkKnownEvent(event, frame.payload);
  if (!checked) return stream.raise('metadata', { type: event.type });
  if (!checked.ok) return stream.problem({ code: 'BAD_FRAME', message: checked.message, streamId: stream.id, opcode: frame.opcode, seq: frame.seq });
  const value = checked.value;
  switch (value.type) {
    case 'subscribed':
      return stream.subscribed(value);
    case 'title':
      return stream.raise('title', { title: value.title });
    case 'exit':
      return stream.exited({ exitCode: value.exitCode, signal: value.signal });
    case 'unsubscribed':
      return stream.finishClose();
  }
}

function onSnapshotEnd(stream: ReceivingStream, frame: Frame): void {
  const result = stream.rx.assembler.end();
  if (!result.ok) return report(stream, frame, result.problem);
  const snap = result.snapshot;
  const appliedUpTo = stream.rx.tracker.lastSeq;
  stream.rx.screen?.replace(snap.text, snap.cols, snap.rows);
  stream.rx.tracker.snapshotApplied(snap.seq);
  stream.counters.snapshotsApplied++;
  stream.raise('snapshot', { source: snap.source, requestId: snap.requestId, seq: snap.seq, cols: snap.cols, rows: snap.rows, truncated: snap.truncated, bytes: snap.text.length, text: snap.text, skippedBytes: appliedUpTo === undefined ? 0 : Math.max(0, snap.seq - appliedUpTo) });
}

function onOutput(stream: ReceivingStream, text: string, seq: number, bytes: number): void {
  const { counters } = stream;
  counters.outputFrames++;
  counters.outputBytes += bytes;
  // Credit is returned for every byte received, applied or not: the host's
  // window counts bytes sent, and ignored output would otherwise leak it.
  // Applied output is credited once the screen has parsed it (or the sink
  // delivered it), so the host's window also bounds how far either can fall behind.
  const batcher = stream.rx.ackBatcher;
  const expectedStart = stream.rx.tracker.lastSeq;
  const verdict = stream.rx.tracker.judge(seq, bytes);
  if (verdict !== 'apply') batcher?.consumed(bytes);
  switch (verdict) {
    case 'apply': {
      counters.outputApplied++;
      const credit = creditOnce(batcher, bytes);
      const { screen, sink } = stream.rx;
      if (sink) sink(text, credit);
      else if (!screen!.write(text, credit)) {
        credit();
        const requestId = stream.requestSnapshot(); // the screen has a hole: repaint it from the host
        stream.problem({ code: 'SCREEN_OVERRUN', message: `the local screen refused ${bytes} bytes of output (too much pending); snapshot ${requestId} requested`, streamId: stream.id, opcode: Op.Output, seq });
        return;
      }
      stream.raise('output', { text, seq });
      return;
    }
    case 'stale':
      counters.outputStale++;
      return;
    case 'awaitingSnapshot':
      counters.outputIgnored++;
      return;
    case 'gap': {
      counters.gaps++;
      const requestId = stream.requestSnapshot();
      stream.problem({ code: 'OUTPUT_GAP', message: `Output seq ${seq} - ${bytes} bytes = ${seq - bytes}, expected ${expectedStart}; snapshot ${requestId} requested`, streamId: stream.id, opcode: Op.Output, seq });
      stream.raise('gap', { expectedStart: expectedStart ?? 0, seq, bytes, requestId });
    }
  }
}

/**
 * Credit for one applied Output, on the connection it arrived on: a later
 * call (a sink that calls `delivered` twice) credits nothing, or the host
 * would count other bytes as consumed before they are.
 */
function creditOnce(batcher: AckBatcher | undefined, bytes: number): () => void {
  if (!batcher) return () => {};
  const epoch = batcher.epoch;
  let credited = false;
  return () => {
    if (credited) return;
    credited = true;
    batcher.consumed(bytes, epoch);
  };
}
