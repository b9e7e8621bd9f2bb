import { afterEach, describe, expect, it } from 'vitest';
import { TerminalClient } from '../../src/client/client.js';
import { decodeFrame } from '../../src/codec/header.js';
import { Op } from '../../src/codec/opcodes.js';
import type { DeliveryNotice } from '../../src/delivery/notices.js';
import { HostRuntime } from '../../src/host/runtime.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { ManualScheduler } from '../client/manual-scheduler.js';
import { type MemoryLink, memoryLinkPair } from '../helpers/memory-link.js';
import { waitFor } from '../helpers/wait-for.js';

const V1_CAPS = { ackOutput: 1, outputPause: 1, writeUnavailable: 1 }; // what v0.1.0 advertises

/** A client and host over SIMULATED in-process links (memory-link.ts); the host can be swapped for a restarted one. */
function setup(opts: { hostCaps?: Record<string, number>; clientCaps?: Record<string, number> } = {}) {
  const backend = new ScriptBackend({ banner: '$ ' });
  const clock = new ManualScheduler();
  const world = {
    runtime: new HostRuntime({ terminals: () => backend, ledgerId: 'ledger-a', ...(opts.hostCaps ? { capabilities: opts.hostCaps } : {}) }),
    links: [] as MemoryLink[],
    hostLinks: [] as MemoryLink[],
  };
  const client = new TerminalClient({
    scheduler: clock,
    random: () => 0.5,
    ...(opts.clientCaps ? { capabilities: opts.clientCaps } : {}),
    connect: async () => {
      const [c, h] = memoryLinkPair();
      world.runtime.accept(h);
      world.links.push(c);
      world.hostLinks.push(h);
      return c;
    },
  });
  const stream = client.subscribe('t');
  const notices: DeliveryNotice[] = [];
  stream.on('inputNotice', (n) => notices.push(n));
  client.start();
  const framesTo = (side: MemoryLink[], opcode: number) => side.flatMap((l) => l.sent).filter((f) => decodeFrame(f).ok && f[2] === opcode).map((f) => (decodeFrame(f) as { frame: { seq: number } }).frame);
  return { backend, clock, world, client, stream, notices, framesTo };
}

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('exactly-once input across versions (simulated links)', () => {
  it('new × new: sequenced input, acked, written once', async () => {
    const s = setup();
    cleanup = () => s.client.close();
    await waitFor(() => s.stream.state === 'live', { what: 'live' });
    expect(s.stream.inputState.sequenced).toBe(true);
    s.stream.write('ab');
    s.stream.write('c\r');
    await waitFor(() => s.stream.inputState.journal.ackedSeq === 2, { what: 'acks up to 2' });
    expect(s.backend.inputLog()).toBe('abc\r');
    expect(s.framesTo(s.world.links, Op.Input).map((f) => f.seq)).toEqual([1, 2]);
  });

  it('new client × old host: unsequenced input, never resent, even across a reconnect', async () => {
    const s = setup({ hostCaps: V1_CAPS });
    cleanup = () => s.client.close();
    await waitFor(() => s.stream.state === 'live', { what: 'live' });
    s.stream.write('one\r');
    await waitFor(() => s.backend.inputLog() === 'one\r', { what: 'first input' });
    s.world.links[0]!.close('drop');
    await waitFor(() => s.client.state === 'waitingToReconnect', { what: 'drop noticed' });
    s.stream.write('two\r'); // held while down, then sent unsequenced
    s.clock.advance(200);
    await waitFor(() => s.stream.state === 'live' && s.world.links.length === 2, { what: 'reconnected' });
    await waitFor(() => s.backend.inputLog() === 'one\rtwo\r', { what: 'held input' });
    s.clock.advance(60_000);
    expect(s.framesTo(s.world.links, Op.Input).every((f) => f.seq === 0)).toBe(true);
    expect(s.framesTo(s.world.links, Op.Input)).toHaveLength(2);
    expect(s.backend.inputLog()).toBe('one\rtwo\r');
  });

  it('old client × new host: no opcode 18 ever reaches it, and its input is written as before', async () => {
    const s = setup({ clientCaps: V1_CAPS });
    cleanup = () => s.client.close();
    await waitFor(() => s.stream.state === 'live', { what: 'live' });
    s.stream.write('x\r');
    await waitFor(() => s.backend.inputLog() === 'x\r', { what: 'input' });
    expect(s.framesTo(s.world.hostLinks, Op.InputAck)).toEqual([]);
  });

  it('a host runtime restart: input held for the old terminal is dropped and reported, never typed into the new one', async () => {
    const s = setup();
    cleanup = () => s.client.close();
    await waitFor(() => s.stream.state === 'live', { what: 'live' });
    s.world.links[0]!.goSilent(); // a black hole; then the runtime restarts behind it
    s.stream.write('unconfirmed\r');
    s.world.runtime = new HostRuntime({ terminals: () => s.backend, ledgerId: 'ledger-b' });
    s.world.links[0]!.close('liveness'); // the client notices
    await waitFor(() => s.client.state === 'waitingToReconnect', { what: 'drop noticed' });
    s.stream.write('after\r'); // typed after detection: held for the terminal it was typed at
    s.clock.advance(200);
    await waitFor(() => s.world.links.length === 2 && s.stream.state === 'live', { what: 'reconnected to the new runtime' });
    await waitFor(() => s.notices.length === 1, { what: 'the drop reported' });
    expect(s.notices.map((n) => [n.code, n.entries.map((e) => e.data)])).toEqual([['TERMINAL_REPLACED', ['unconfirmed\r', 'after\r']]]);
    s.stream.write('fresh\r'); // typed at the new terminal: delivered
    await waitFor(() => s.backend.inputLog() === 'fresh\r', { what: 'input typed after the replacement' });
    s.clock.advance(60_000);
    expect(s.backend.inputLog()).toBe('fresh\r');
  });
});
