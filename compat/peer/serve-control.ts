import { Socket } from 'node:net';
import { type ControlMessage, type ControlRequest, type PeerHello, readControl, sendControl } from './control-channel.js';

export type ControlHandlers = Record<string, (args: any) => unknown | Promise<unknown>>;

/**
 * Peer side of the control channel: announces itself, then answers requests
 * one by one. 'shutdown' is always understood: it runs the peer's cleanup and exits.
 */
export function serveControl(hello: PeerHello, handlers: ControlHandlers, shutdown: () => Promise<void>): void {
  const channel = new Socket({ fd: 3, readable: true, writable: true });
  const stop = async (code: number) => {
    await shutdown().catch(() => undefined);
    channel.end(() => process.exit(code));
  };
  channel.on('error', () => undefined); // a close follows, and the close stops the peer
  channel.on('close', () => void stop(0));
  sendControl(channel, { hello: { ...hello.hello, ops: Object.keys(handlers) } });
  readControl(channel, (message: ControlMessage) => {
    const request = message as ControlRequest;
    if (request.op === 'shutdown') {
      sendControl(channel, { id: request.id, ok: true, result: null });
      void stop(0);
      return;
    }
    const handler = handlers[request.op];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown control op '${request.op}' (this peer knows: ${Object.keys(handlers).join(', ')})`);
        return handler(request.args);
      })
      .then(
        (result) => sendControl(channel, { id: request.id, ok: true, result: result ?? null }),
        (error: unknown) => sendControl(channel, { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
  });
}
