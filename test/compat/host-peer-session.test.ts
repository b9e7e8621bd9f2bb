import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startPeer } from '../../compat/journey/peer-pool.js';
import { handmadeFrame, WIRE } from '../../compat/journey/wire-view.js';
import { waitFor } from '../helpers/wait-for.js';

// The gate's host peer as the gate runs it (a process of this checkout's build), with a real bash in a PTY; a raw WebSocket stands in for a client.
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe("the gate's host peer with a real shell", () => {
  it('starts the shell as serve does, with the variables the host kept of the Subscribe\'s environment', async () => {
    const peer = await startPeer({ buildDir: join(import.meta.dirname, '..', '..'), role: 'host', sessions: false, args: ['--backend', 'pty'], label: 'host peer' });
    cleanup.push(() => peer.stop());
    const { url, token } = peer.hello as unknown as { url: string; token: string };
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    cleanup.push(() => ws.terminate());
    let output = '';
    ws.on('message', (data: Buffer) => {
      if (data[2] === WIRE.opcode.Output) output += data.subarray(WIRE.headerBytes).toString();
    });
    await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
    // A locale no shell of this machine inherits: only the Subscribe can have given it.
    ws.send(handmadeFrame(WIRE.opcode.Subscribe, 0, JSON.stringify({ streamId: 1, terminal: 'main', cols: 80, rows: 24, environment: { LC_PAPER: 'en_GB.peer-session' } })));
    ws.send(handmadeFrame(WIRE.opcode.Input, 1, 'echo "[${LC_PAPER:-unset}]"\r'));
    await waitFor(() => /\[(en_GB\.peer-session|unset)\]/.test(output), { what: "the shell's echo of LC_PAPER" });
    expect(output).toContain('[en_GB.peer-session]');
  });
});
