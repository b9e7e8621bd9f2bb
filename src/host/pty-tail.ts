import { readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { IPty } from 'node-pty';

/** Size of each read of what is left: a PTY hands out at most about 4 KiB per read anyway. */
const TAIL_READ_BYTES = 64 * 1024;

/** The parts of node-pty's UnixTerminal this reaches into; neither is in its typings. */
interface UnixTerminalInternals {
  readonly _socket?: NodeJS.EventEmitter;
  readonly _fd?: number;
}

/**
 * Reads what a PTY still holds when libuv has already called it the end.
 *
 * Once the program's side of a PTY is closed, the kernel reports a hangup
 * while output can still wait to be read, and a PTY hands that output out
 * about 4 KiB per read. libuv takes a hangup after a read shorter than its
 * buffer for the end of the stream, so node-pty ends the terminal with that
 * output unread: a program that printed a lot just before it exited lost up to
 * about 10 KB of its last output in half the runs (300 KB then a marker,
 * measured on Linux with node-pty 1.1). A reader that reads until EIO gets
 * all of it, so at the stream's end, before node-pty closes the fd, this reads
 * on until the kernel says there is no more.
 *
 * Does nothing when node-pty's internals are not what it expects: output is
 * then read as node-pty reads it.
 */
export function readTailAtEnd(proc: IPty, onTail: (text: string) => void): void {
  const { _socket: socket, _fd: fd } = proc as unknown as UnixTerminalInternals;
  if (!socket || typeof fd !== 'number') return;
  socket.once('end', () => {
    const text = readRemaining(fd);
    if (text.length > 0) onTail(text);
  });
}

function readRemaining(fd: number): string {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(TAIL_READ_BYTES);
  let text = '';
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      break; // EIO: nothing left and nobody can write more; EAGAIN: nothing left now
    }
    if (n === 0) break;
    text += decoder.write(buffer.subarray(0, n));
  }
  return text + decoder.end();
}
