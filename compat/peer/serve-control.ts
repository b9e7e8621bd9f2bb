import { Socket } from 'node:net';
import { forgetUngatedSends } from '../../src/capabilities/send-gate.js';
import { type ControlMessage, type ControlRequest, type PeerHello, readControl, sendControl } from './control-channel.js';

export type ControlHandlers = Record<string, (args: any) => unknown | Promise<unknown>>;

/** One host or client a peer runs: what it announces, the ops it answers, and how it stops. */
export interface PeerSession {
  readonly hello: PeerHello['hello'];
  readonly handlers: ControlHandlers;
  close(): Promise<void>;
}

/**
 * Peer side of the control channel: announces itself, then answers requests
 * one by one. 'shutdown' is always understood: it runs the peer's cleanup and exits.
 */
export function serveControl(hello: PeerHello, handlers: ControlHandlers, shutdown: () => Promise<void>): void {
  serveChannel({ hello: { ...hello.hello, ops: Object.keys(handlers) } }, (op) => handlers[op], () => Object.keys(handlers), shutdown);
}

/**
 * A peer started with `--sessions`: one session at a time, each opened with
 * the arguments a one-session peer takes on its command line and closed as
 * that peer shuts down, then the next. `open` answers the session's hello;
 * every other op goes to the open session. What the send gates dropped is
 * counted per session.
 */
export function serveSessions(hello: PeerHello, open: (argv: readonly string[]) => Promise<PeerSession>): void {
  let session: PeerSession | undefined;
  const own: ControlHandlers = {
    open: async ({ argv }: { argv: string[] }) => {
      if (session) throw new Error('a session is open already: close it first');
      forgetUngatedSends();
      session = await open(argv);
      return { ...session.hello, ops: Object.keys(session.handlers) };
    },
    close: async () => {
      const closing = session;
      session = undefined;
      await closing?.close();
    },
  };
  serveChannel(
    { hello: { ...hello.hello, ops: Object.keys(own) } },
    (op) => own[op] ?? session?.handlers[op],
    () => [...Object.keys(own), ...Object.keys(session?.handlers ?? {})],
    async () => session?.close(),
  );
}

function serveChannel(hello: PeerHello, handlerOf: (op: string) => ControlHandlers[string] | undefined, known: () => string[], shutdown: () => Promise<void>): void {
  const channel = new Socket({ fd: 3, readable: true, writable: true });
  const stop = async (code: number) => {
    await shutdown().catch(() => undefined);
    channel.end(() => process.exit(code));
  };
  channel.on('error', () => undefined); // a close follows, and the close stops the peer
  channel.on('close', () => void stop(0));
  sendControl(channel, hello);
  readControl(channel, (message: ControlMessage) => {
    const request = message as ControlRequest;
    if (request.op === 'shutdown') {
      sendControl(channel, { id: request.id, ok: true, result: null });
      void stop(0);
      return;
    }
    const handler = handlerOf(request.op);
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown control op '${request.op}' (this peer knows: ${known().join(', ')})`);
        return handler(request.args);
      })
      .then(
        (result) => sendControl(channel, { id: request.id, ok: true, result: result ?? null }),
        (error: unknown) => sendControl(channel, { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
  });
}
