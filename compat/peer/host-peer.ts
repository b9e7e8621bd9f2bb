import { randomBytes } from 'node:crypto';
import { HostRuntime } from '../../src/host/runtime.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { startWsServer } from '../../src/transport/ws-server.js';
import { PEER_PROTOCOL_VERSION } from './protocol-version.js';
import { serveControl } from './serve-control.js';
import { buildVersion } from './version.js';

const TERMINAL = 'main';

/** A reference host serving one deterministic script terminal, for byte-stable frames. */
export async function runHostPeer(): Promise<void> {
  const backend = new ScriptBackend();
  const host = new HostRuntime({ terminals: (name) => (name === TERMINAL ? backend : undefined) });
  const token = randomBytes(16).toString('hex');
  const server = await startWsServer({ token, onLink: (link) => host.accept(link) });
  serveControl(
    { hello: { peerProtocol: PEER_PROTOCOL_VERSION, role: 'host', version: buildVersion(), advertised: { ...host.capabilities } as Record<string, number>, url: server.url, token } },
    {
      emit: ({ text }: { text: string }) => backend.emit(text),
      state: async () => {
        const terminal = host.terminal(TERMINAL);
        await terminal?.screen.settled();
        return {
          inputLog: backend.inputLog(),
          screen: terminal?.screen.text() ?? '',
          pausedStreams: host.pausedStreamCount(),
          errors: [],
        };
      },
    },
    async () => {
      host.close();
      await server.close();
    },
  );
}
