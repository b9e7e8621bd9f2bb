import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/helpers/wait-for.js';
import { encodeFrame, lengthPrefixed, Op, type WireError } from '../codec/index.js';
import { streamLink } from './stream.js';

const utf8 = new TextEncoder();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const output = (text: string, seq: number) => encodeFrame({ opcode: Op.Output, streamId: 1, seq, payload: utf8.encode(text) });

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A real TCP connection on loopback: both ends' sockets. */
async function socketPair(): Promise<{ client: Socket; server: Socket }> {
  const server: Server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const client = connect(address.port, '127.0.0.1');
  const [[serverSide]] = await Promise.all([accepted, once(client, 'connect')]);
  cleanups.push(() => {
    client.destroy();
    serverSide.destroy();
    server.close();
  });
  return { client, server: serverSide };
}

function collect() {
  const frames: string[] = [];
  const closes: string[] = [];
  return { frames, closes, handlers: { frame: (bytes: Uint8Array) => frames.push(hex(bytes)), close: (reason: string) => closes.push(reason) } };
}

/** Two stream links over one real socket pair, each collecting what it receives. */
async function linkedPair() {
  const { client, server } = await socketPair();
  const a = streamLink(client);
  const b = streamLink(server);
  const atA = collect();
  const atB = collect();
  a.attach(atA.handlers);
  b.attach(atB.handlers);
  return { client, server, a, b, atA, atB };
}

describe('streamLink over a real loopback TCP socket', () => {
  it('carries frames both ways, byte for byte', async () => {
    const { a, b, atA, atB } = await linkedPair();
    const toB = [output('hello', 1), output('', 2), output('x'.repeat(100_000), 100_002)];
    const toA = [encodeFrame({ opcode: Op.Ack, streamId: 1, payload: utf8.encode('{"bytes":5}') })];
    for (const f of toB) a.send(f);
    for (const f of toA) b.send(f);
    await waitFor(() => atB.frames.length === toB.length && atA.frames.length === toA.length, { what: 'all frames on both sides' });
    expect(atB.frames).toEqual(toB.map(hex));
    expect(atA.frames).toEqual(toA.map(hex));
  });

  it('reassembles a frame whose bytes arrive in separate TCP reads', async () => {
    const { client, server } = await socketPair();
    const link = streamLink(server);
    const received = collect();
    link.attach(received.handlers);
    const frame = output('split across writes', 9);
    const wire = lengthPrefixed(frame);
    // Wait for each piece to be read before writing the next, so the reads really are separate.
    for (const [from, to] of [[0, 2], [2, 7], [7, wire.length]] as const) {
      client.write(wire.subarray(from, to));
      await waitFor(() => server.bytesRead >= to, { what: `server to read ${to} bytes` });
      if (to < wire.length) expect(received.frames).toEqual([]);
    }
    await waitFor(() => received.frames.length === 1, { what: 'the reassembled frame' });
    expect(received.frames).toEqual([hex(frame)]);
  });

  it('refuses an oversized frame, reports it, and still delivers the next frame', async () => {
    const { client, server } = await socketPair();
    const errors: WireError[] = [];
    const link = streamLink(server, { maxFrameBytes: 1024, onError: (e) => errors.push(e) });
    const received = collect();
    link.attach(received.handlers);
    const oversized = lengthPrefixed(output('y'.repeat(5000), 1));
    const next = output('next', 2);
    client.write(oversized);
    client.write(lengthPrefixed(next));
    await waitFor(() => received.frames.length === 1, { what: 'the frame after the refused one' });
    expect(received.frames).toEqual([hex(next)]);
    expect(errors.map((e) => e.code)).toEqual(['FRAME_TOO_LARGE']);
    expect(errors[0]?.message).toContain(`${oversized.length - 4} bytes > maxFrameBytes 1024`);
    expect(link.refusedFrames).toBe(1);
    expect(link.isOpen).toBe(true);
  });

  it('holds frames that arrive before attach, then delivers them in order', async () => {
    const { client, server } = await socketPair();
    const link = streamLink(server);
    client.write(Buffer.concat([lengthPrefixed(output('one', 1)), lengthPrefixed(output('two', 2))]));
    await waitFor(() => server.bytesRead > 0, { what: 'bytes before attach' });
    const received = collect();
    link.attach(received.handlers);
    await waitFor(() => received.frames.length === 2, { what: 'two held frames' });
    expect(received.frames).toEqual([hex(output('one', 1)), hex(output('two', 2))]);
  });

  it('holds frames that spanned reads before attach as copies: the next spanning frame does not overwrite them', async () => {
    const { client, server } = await socketPair();
    const link = streamLink(server);
    const frames = [output('a'.repeat(300), 300), output('b'.repeat(300), 600)];
    let sent = 0;
    for (const frame of frames) {
      const wire = lengthPrefixed(frame);
      for (const piece of [wire.subarray(0, 100), wire.subarray(100)]) {
        client.write(piece);
        sent += piece.length;
        await waitFor(() => server.bytesRead >= sent, { what: `server to read ${sent} bytes` });
      }
    }
    const received = collect();
    link.attach(received.handlers);
    expect(received.frames).toEqual(frames.map(hex));
  });

  it('closing one side closes the other once; sends after close are dropped', async () => {
    const { client, server, a, atA, atB } = await linkedPair();
    const socketErrors: Error[] = [];
    client.on('error', (e) => socketErrors.push(e));
    a.close('done here');
    expect(atA.closes).toEqual(['done here']);
    expect(a.isOpen).toBe(false);
    a.send(output('late', 3));
    await waitFor(() => atB.closes.length === 1, { what: 'the peer to see the close' });
    expect(atB.closes).toEqual(['the peer ended the stream']);
    await waitFor(() => client.destroyed && server.destroyed, { what: 'both sockets destroyed' });
    expect(atA.closes).toHaveLength(1);
    expect(atB.frames).toEqual([]);
    // A send after close is dropped before it reaches the socket (no write-after-end error).
    expect(socketErrors).toEqual([]);
  });
});

describe('streamLink over a readable/writable pair (as stdin/stdout)', () => {
  it('writes length-prefixed frames to the writable and reads them from the readable', async () => {
    // In-process pipes stand in for stdin/stdout here; the framing is the same as over TCP.
    const toPeer = new PassThrough();
    const fromPeer = new PassThrough();
    const link = streamLink({ readable: fromPeer, writable: toPeer });
    const received = collect();
    link.attach(received.handlers);
    const frame = output('via stdio', 4);
    link.send(frame);
    const written = toPeer.read() as Buffer;
    expect(hex(written)).toBe(hex(lengthPrefixed(frame)));
    fromPeer.write(written);
    await waitFor(() => received.frames.length === 1, { what: 'the frame from the readable' });
    expect(received.frames).toEqual([hex(frame)]);
    fromPeer.end();
    await waitFor(() => received.closes.length === 1, { what: 'close on end of input' });
    expect(received.closes).toEqual(['the peer ended the stream']);
  });
});
