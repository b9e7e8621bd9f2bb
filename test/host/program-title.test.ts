import { afterEach, describe, expect, it } from 'vitest';
import { Op } from '../../src/codec/opcodes.js';
import { DEFAULT_HOST_OPTIONS } from '../../src/host/options.js';
import { HostedTerminal, TITLE_CUT_MARKER } from '../../src/host/hosted-terminal.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { ScreenThread } from '../../src/host/screen-thread.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

// What a program prints is input too: a `cat` of a binary file can set a title of megabytes.
// Real host runtime, real screen worker, real WebSocket; the script terminal prints the title.
const HUGE_TITLE = `\x1b]0;${'t'.repeat(9_000_000)}\x07`;

let testHost: TestHost | undefined;
afterEach(async () => {
  await testHost?.close();
  testHost = undefined;
});

async function subscribed(peer: RawPeer, streamId: number, terminal: string): Promise<void> {
  peer.subscribe(streamId, terminal, { capabilities: {} }); // no window: the title's 9 MB of output flows without Acks
  await peer.waitFor(() => peer.snapshots(streamId).length > 0, `snapshot on stream ${streamId}`);
}

async function echoes(peer: RawPeer, streamId: number, word: string): Promise<void> {
  peer.send('Input', streamId, `${word}\r`);
  await peer.waitFor(() => peer.outputText(streamId).includes(`ran: ${word}`), `echo of ${word} on stream ${streamId}`, 30_000);
}

const titles = (peer: RawPeer, streamId: number) => peer.on(streamId, Op.Metadata).map((f) => peer.json(f) as { type: string; title?: string }).filter((e) => e.type === 'title');

describe('a program that prints a huge title', () => {
  it('gets its title published cut to maxTitleBytes, and every terminal goes on', async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('a', 'b') });
    const peer = await testHost.connect();
    await subscribed(peer, 1, 'a');
    await subscribed(peer, 2, 'b');
    (testHost!.host.terminal('a')!.backend as ScriptBackend).emit(HUGE_TITLE);
    await peer.waitFor(() => titles(peer, 1).length > 0, 'the title event', 60_000);
    const published = titles(peer, 1)[0]!.title!;
    expect(published).toBe(`${'t'.repeat(DEFAULT_HOST_OPTIONS.maxTitleBytes - 3)}${TITLE_CUT_MARKER}`);
    expect(new TextEncoder().encode(published).length).toBe(DEFAULT_HOST_OPTIONS.maxTitleBytes);
    await echoes(peer, 1, 'after-title');
    await echoes(peer, 2, 'other-terminal');
    expect(testHost!.host.counters.internalErrors).toBe(0);
  }, 120_000);

  it('a subscriber whose delivery throws is contained: the others are told, the failure is reported, nothing propagates', async () => {
    // Direct, on one terminal: over a socket, whether a snapshot happens to be pending decides which path a send takes.
    const failures: unknown[] = [];
    const backend = new ScriptBackend({ banner: '$ ' });
    const terminal = new HostedTerminal('t', backend, DEFAULT_HOST_OPTIONS, { subscriberFailed: (_t, e) => failures.push(e) }, () => 'id', ScreenThread.inline());
    const heard: string[] = [];
    const listener = (record: boolean) => ({
      output: () => undefined,
      resized: () => undefined,
      exit: () => undefined,
      title: (title: string) => {
        if (!record) throw new Error('PAYLOAD_TOO_LARGE: Metadata JSON too large');
        heard.push(title);
      },
    });
    terminal.attach(listener(false));
    terminal.attach(listener(true));
    backend.emit('\x1b]0;hello\x07');
    await terminal.screen.settled();
    expect(heard).toEqual(['hello']);
    expect(failures).toHaveLength(1);
    terminal.dispose();
  });
});
