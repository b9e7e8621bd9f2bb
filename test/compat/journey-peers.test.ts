import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PeerProcess, PeerProtocolError } from '../../compat/journey/peer-process.js';
import { isAlive, waitForExit } from '../helpers/process-alive.js';
import { waitFor } from '../helpers/wait-for.js';

const root = join(import.meta.dirname, '..', '..');
const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((f) => f()));

describe('peer processes', () => {
  it('a peer exits by itself when the harness dies without a word (SIGKILL)', async () => {
    // A stand-in harness in its own process: starts a real host peer of this build, prints its pid, then waits.
    const harness = `
      import { PeerProcess } from ${JSON.stringify(pathToFileURL(join(root, 'dist', 'compat', 'journey', 'peer-process.js')).href)};
      const peer = await PeerProcess.start({ buildDir: ${JSON.stringify(root)}, role: 'host', label: 'host' });
      console.log('peer-pid', peer.pid);
      setInterval(() => undefined, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', harness], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanup.push(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    await waitFor(() => /peer-pid (\d+)/.test(out), { what: 'the harness to print its peer pid', timeoutMs: 20_000 });
    const peerPid = Number(/peer-pid (\d+)/.exec(out)![1]);
    expect(isAlive(peerPid)).toBe(true);
    child.kill('SIGKILL');
    await waitForExit(peerPid, { what: `peer ${peerPid} to exit after its harness was killed`, timeoutMs: 10_000 });
  });

  it('refuses a peer speaking a peer protocol this harness cannot drive, naming both versions', async () => {
    const build = mkdtempSync(join(tmpdir(), 'termwire-future-peer-'));
    cleanup.push(() => rmSync(build, { recursive: true, force: true }));
    mkdirSync(join(build, 'dist', 'compat', 'peer'), { recursive: true });
    // A future build's peer: says hello with protocol 99 over fd 3, length-prefixed msgpack like the real one.
    writeFileSync(
      join(build, 'dist', 'compat', 'peer', 'main.js'),
      `import { Socket } from 'node:net';
       import { encode } from ${JSON.stringify(pathToFileURL(join(root, 'node_modules', '@msgpack', 'msgpack', 'dist.esm', 'index.mjs')).href)};
       const body = encode({ hello: { peerProtocol: 99, role: 'host', version: '9.0.0', advertised: {} } });
       const head = Buffer.alloc(4); head.writeUInt32LE(body.length);
       const channel = new Socket({ fd: 3, readable: true, writable: true });
       channel.write(Buffer.concat([head, body]));
       setInterval(() => undefined, 1000);`,
    );
    const started = PeerProcess.start({ buildDir: build, role: 'host', label: 'future host' });
    await expect(started).rejects.toBeInstanceOf(PeerProtocolError);
    await expect(started).rejects.toThrow(/peer protocol 99 of build 9\.0\.0 is outside what this harness drives \(1\.\.1\)/);
  });
});
