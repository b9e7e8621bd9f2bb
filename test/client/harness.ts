import { TerminalClient } from '../../src/client/client.js';
import type { ClientOptionsInput } from '../../src/client/options.js';
import { memoryLinkPair, type MemoryLink } from '../helpers/memory-link.js';
import { FakeHost } from './fake-host.js';

/**
 * A client wired to the SIMULATED FakeHost over in-process memory links; each
 * connect() opens a new link pair, as a reconnect would open a new socket.
 */
export function clientWithFakeHost(options: Partial<ClientOptionsInput> = {}): {
  host: FakeHost;
  client: TerminalClient;
  clientLinks: MemoryLink[];
} {
  const host = new FakeHost();
  host.addTerminal('t1');
  host.addTerminal('t2');
  const clientLinks: MemoryLink[] = [];
  const client = new TerminalClient({
    random: () => 0.5,
    ...options,
    connect: async () => {
      const [clientEnd, hostEnd] = memoryLinkPair();
      host.accept(hostEnd);
      clientLinks.push(clientEnd);
      return clientEnd;
    },
  });
  return { host, client, clientLinks };
}
