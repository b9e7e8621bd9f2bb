import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../compat/explore/prng.js';
import type { ScriptBackend } from '../../src/host/script-backend.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, type TestHost } from './harness.js';
import { scriptTerminals } from './script-hosts.js';

// Whatever a program prints must never take the host down. Real HostRuntime,
// real screen worker, real WebSocket subscriber; the program's output is
// injected through the script terminal (what node-pty would hand the host: a
// string, with malformed UTF-8 already turned into U+FFFD or lone surrogates).
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const CHUNKS = 24;
/** Sizes are drawn log-uniformly up to this; one chunk of GIANT_BYTES is added, as a `cat` of a big binary file would print. */
const MAX_DRAWN_BYTES = 2 * 1024 * 1024;
const GIANT_BYTES = 64 * 1024 * 1024;

type Random = () => number;
const int = (r: Random, n: number) => Math.floor(r() * n);
const size = (r: Random) => Math.floor(Math.exp(r() * Math.log(MAX_DRAWN_BYTES)));
const ODD = ['\ufffd', '\ud800', '\udfff', '\u0000', '\u009b', '\u0090', '\u001b', '\u0007', '\u200d', '\u0301', '🀄', '\u{10ffff}', '\r', '\n', '\t'];
/** Text of about `n` code units, mostly printable, with odd code points and stray controls mixed in. */
function junk(r: Random, n: number): string {
  const piece = Array.from({ length: Math.min(n, 4096) }, () => (r() < 0.15 ? ODD[int(r, ODD.length)]! : String.fromCharCode(32 + int(r, 95)))).join('');
  return piece.repeat(Math.ceil(n / piece.length)).slice(0, n);
}

/** The kinds of output drawn: escape sequences of random sizes, terminated or not, and plain floods. */
const KINDS: ReadonlyArray<readonly [string, (r: Random, n: number) => string]> = [
  ['OSC 0 title', (r, n) => `\x1b]0;${junk(r, n)}\x07`],
  ['OSC 2 title, ST', (r, n) => `\x1b]2;${junk(r, n)}\x1b\\`],
  ['OSC 8 hyperlink', (r, n) => `\x1b]8;;${junk(r, n)}\x1b\\link\x1b]8;;\x1b\\`],
  ['OSC 52 clipboard', (r, n) => `\x1b]52;c;${'QUJD'.repeat(Math.ceil(n / 4))}\x07`],
  ['DCS', (r, n) => `\x1bP1$q${junk(r, n)}\x1b\\`],
  ['APC', (r, n) => `\x1b_G${junk(r, n)}\x1b\\`],
  ['unterminated OSC', (r, n) => `\x1b]0;${junk(r, n)}`],
  ['CSI with many parameters', (r, n) => `\x1b[${Array.from({ length: Math.min(n, 50_000) }, () => int(r, 70000)).join(';')}m`],
  ['one huge line', (r, n) => junk(r, n).replace(/[\r\n]/g, 'x')],
  ['lines', (r, n) => `${junk(r, n)}\r\n`],
];

/** What a PTY read hands the host at most; a program's output arrives in pieces of this size, never whole. */
const PTY_READ = 64 * 1024;

/** Prints `text` as a program would through a PTY: in read-sized pieces (never splitting a surrogate pair), held while the host pauses the terminal. */
function print(program: ScriptBackend, text: string): void {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + PTY_READ);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    program.emit(text.slice(at, end));
    at = end;
  }
}

let testHost: TestHost | undefined;
afterEach(async () => {
  await testHost?.close();
  testHost = undefined;
});

/** Types `word` and waits for the program's answer, reading only output that arrived after the typing (the flood before it can be 64 MiB). */
async function echoes(peer: RawPeer, streamId: number, word: string, context: string): Promise<void> {
  const echoed = peer.outputWatch(streamId, `ran: ${word}`);
  peer.send('Input', streamId, `${word}\r`);
  await peer.waitFor(echoed, `the echo of ${word} after ${context} (seed ${SEED}; rerun with FUZZ_SEED=${SEED})`, 120_000);
}

describe('a program printing anything (seeded output fuzz)', () => {
  it(`keeps the host up and the stream working through ${CHUNKS} drawn chunks and one of 64 MiB (seed ${SEED})`, async () => {
    testHost = await startTestHost({ terminals: scriptTerminals('fuzzed', 'bystander') });
    const peer = await testHost.connect();
    for (const [id, name] of [[1, 'fuzzed'], [2, 'bystander']] as const) {
      peer.subscribe(id, name, { capabilities: {} }); // no window: the output flows without Acks
      await peer.waitFor(() => peer.snapshots(id).length > 0, `the snapshot of ${name}`);
    }
    const program = testHost.host.terminal('fuzzed')!.backend as ScriptBackend;
    const random = seededRandom(SEED);
    const drawn = Array.from({ length: CHUNKS }, () => {
      const [kind, make] = KINDS[int(random, KINDS.length)]!;
      return { kind, text: make(random, size(random)) };
    });
    drawn.splice(int(random, CHUNKS), 0, { kind: 'OSC 0 title of 64 MiB', text: KINDS[0]![1](random, GIANT_BYTES) });
    for (const [i, { kind, text }] of drawn.entries()) {
      print(program, text);
      // Reset what an unterminated sequence or a mode left behind, so the echo is readable.
      print(program, '\x07\x1b\\\x1bc');
      await echoes(peer, 1, `alive-${i}`, `chunk ${i}: ${kind}, ${text.length} code units`);
    }
    await echoes(peer, 2, 'bystander', 'every chunk');
    expect(peer.closeInfo, `the subscriber's connection stayed open (seed ${SEED})`).toBeUndefined();
  }, 900_000);
});
