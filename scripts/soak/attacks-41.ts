import { connect as tcpConnect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AbuserContext, endingOutcome, running, session } from './abusers.js';
import { type Attack, drained } from './attack-helpers.js';
import { SoakPeer } from './peer.js';

/**
 * The attacks of issue 41: a hostile program, a hostile client and hostile
 * unauthenticated peers against one host; attacks.ts lists them after those
 * of issue 20.
 */

const MiB = 1024 * 1024;

/** Waits until the soak ends or the peer closes. */
async function holdUntilEnd(ctx: AbuserContext, peer: SoakPeer): Promise<void> {
  await Promise.race([peer.whenClosed(), sleep(Math.max(0, ctx.until - performance.now()))]);
}

/** Starts `command` in a terminal of its own and lets it print until the soak ends. */
function program(ctx: AbuserContext, terminal: string, command: string, viewport?: { cols: number; rows: number }): Promise<void> {
  return session(ctx, async (peer) => {
    peer.send('Subscribe', 0, { streamId: 1, terminal, ...(viewport ? { viewport } : {}) });
    peer.send('Input', 1, `${command}\r`);
    // It reads nothing: acked or not, the host's flow control and screen limits are what is tested.
    await holdUntilEnd(ctx, peer);
  });
}

/** Opens connections from `sources` × `perSource` loopback addresses; refusals are tallied. */
async function connections(ctx: AbuserContext, sources: number, perSource: number, firstOctet: number): Promise<SoakPeer[]> {
  const peers: SoakPeer[] = [];
  for (let s = 0; s < sources; s++) {
    for (let i = 0; i < perSource && running(ctx); i++) {
      const peer = await SoakPeer.connect(ctx.url, ctx.token, `127.${firstOctet}.${s + 1}.1`);
      if (peer instanceof SoakPeer) peers.push(peer);
      else ctx.tally(endingOutcome(peer));
    }
  }
  return peers;
}

/** Every 2 s a newcomer from an address of its own tries to connect and start a terminal: tallied by what it got. */
async function newcomers(ctx: AbuserContext): Promise<void> {
  for (let n = 0; running(ctx); n++) {
    const peer = await SoakPeer.connect(ctx.url, ctx.token, '127.0.99.1');
    if (!(peer instanceof SoakPeer)) ctx.tally(`newcomer ${endingOutcome(peer)}`);
    else {
      const answered = peer.nextFrame(4 /* SnapshotEnd */, 1, 5000);
      peer.send('Subscribe', 0, { streamId: 1, terminal: `newcomer-${n}` });
      if (await answered) ctx.tally('newcomer got a terminal');
      else ctx.tally(peer.errorCodes.size > 0 ? `newcomer error ${[...peer.errorCodes.keys()].join(',')}` : 'newcomer got no snapshot in 5 s');
      peer.close();
    }
    await sleep(2000);
  }
}

/** Loopback networks the unauthenticated flood comes from, and the sockets each keeps starting at once. */
const FLOOD_NETWORKS = 40;
const FLOOD_BURST = 25;
/** How long a flood socket waits for the server to drop it before the attacker gives it up. */
const FLOOD_SOCKET_MS = 250;

/** Opens a socket from `localAddress` that starts an HTTP request and never finishes it; true if the server closed it first. */
function unfinishedRequest(url: URL, localAddress: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ port: Number(url.port), host: url.hostname, localAddress });
    const giveUp = setTimeout(() => {
      resolve(false);
      socket.destroy();
    }, FLOOD_SOCKET_MS);
    socket.on('error', () => {});
    socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: soak\r\n'));
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve(true);
    });
  });
}

export const ISSUE_41_ATTACKS: readonly Attack[] = [
  {
    name: 'REP counts of 999,999 and 2,147,483,647',
    before: '7 of 9 Subscribe probes and 6 of 7 new connections got no snapshot; snapshots stayed frozen 17 s after; y ESC[2147483647b never finished in xterm',
    defendedBy: 'limits',
    run: (ctx) => program(ctx, 'attack-rep', `printf 'y\\033[2147483647b'; while :; do printf 'y\\033[999999b\\033[99999999S\\r\\n'; done`),
  },
  {
    name: 'alternate screen and scroll region toggling at 1000x1000',
    before: '5 of 7 Subscribe probes lost',
    defendedBy: 'limits',
    run: (ctx) => program(ctx, 'attack-altscreen', `while :; do printf '\\033[?1049h\\033[?1049l\\033[1;999r\\033[r\\033[2J'; done`, { cols: 1000, rows: 1000 }),
  },
  {
    name: 'OSC 8 links with a fresh id each',
    before: '1.75 GB within 90 s from 55 MB of output, still rising',
    defendedBy: 'limits',
    run: (ctx) => program(ctx, 'attack-links', `awk 'BEGIN{for(i=0;;i++) printf "\\033]8;id=%d;https://e.example/%d\\033\\\\x\\033]8;;\\033\\\\", i, i}'`),
  },
  {
    name: 'mixed OSC flood (titles, links, clipboard, palette, directories, marks)',
    before: 'grew from 171 to 785 MiB in 90 s',
    defendedBy: 'limits',
    run: (ctx) =>
      program(
        ctx,
        'attack-osc-mix',
        `awk 'BEGIN{for(i=0;;i++) printf "\\033]0;title %d\\007\\033]8;id=%d;https://e.example/%d\\033\\\\x\\033]8;;\\033\\\\\\033]52;c;aGVsbG8gJWQ=\\007\\033]4;%d;rgb:%02x/%02x/%02x\\007\\033]7;file://host/dir/%d\\007\\033]133;A\\007y", i, i, i, i%256, i%256, (i*7)%256, (i*13)%256, i}'`,
      ),
  },
  {
    name: 'Subscribe/Unsubscribe churn on a 1000x1000 screen coloured in every cell',
    before: '772 MiB; healthy echo p99 2.5 s, Subscribe p99 4.2 s',
    defendedBy: 'limits',
    async run(ctx) {
      const owner = SoakPeer.connect(ctx.url, ctx.token);
      const fill = `awk 'BEGIN{for(r=0;r<2000;r++){for(c=0;c<1000;c++) printf "\\033[3%d;4%dmx", c%8, (c+r)%8; printf "\\033[0m\\r\\n"}}'; sleep 100000`;
      const first = await owner;
      if (!(first instanceof SoakPeer)) return ctx.tally(endingOutcome(first));
      first.send('Subscribe', 0, { streamId: 1, terminal: 'attack-churn', viewport: { cols: 1000, rows: 1000 } });
      first.send('Input', 1, `${fill}\r`);
      await Promise.all(
        Array.from({ length: 12 }, () =>
          session(ctx, async (peer) => {
            for (let round = 0; running(ctx) && peer.isOpen; round++) {
              const streamId = 2 + (round % 32);
              peer.send('Subscribe', 0, { streamId, terminal: 'attack-churn' });
              peer.send('Unsubscribe', streamId, undefined);
              await drained(peer, MiB);
              await sleep(1);
            }
          }),
        ),
      );
      first.close();
    },
  },
  {
    name: '60 detached terminals that keep printing',
    before: '821 MiB: 8 MiB of screen backlog each, no total',
    defendedBy: 'limits',
    async run(ctx) {
      // 4 networks of 15: maxTerminalsPerConnection counts a network.
      await Promise.all(
        Array.from({ length: 4 }, async (_, s) => {
          const peer = await SoakPeer.connect(ctx.url, ctx.token, `127.0.${40 + s}.1`);
          if (!(peer instanceof SoakPeer)) return ctx.tally(endingOutcome(peer));
          for (let t = 1; t <= 15; t++) {
            peer.send('Subscribe', 0, { streamId: t, terminal: `printer-${s}-${t}` });
            peer.send('Input', t, `yes 'a line from a printer nobody watches, long enough to cost the screen a little work'\r`);
          }
          await sleep(3000);
          for (const [code, n] of peer.errorCodes) for (let i = 0; i < n; i++) ctx.tally(`error ${code}`);
          peer.close(); // detached: the terminals print on
          ctx.tally('15 printers left running');
        }),
      );
      await sleep(Math.max(0, ctx.until - performance.now()));
    },
  },
  {
    name: '254 idle connections that answer pings',
    before: 'every newcomer got 503 CONNECTIONS_PER_SERVER_LIMIT for as long as they stayed',
    defendedBy: 'limits',
    async run(ctx) {
      // 4 networks of 63 (maxConnectionsPerSource 64), plus the soak's own healthy clients: the server is full.
      const idle = await connections(ctx, 4, 63, 50);
      ctx.tally(`${idle.length} idle connections open`);
      await newcomers(ctx);
      for (const p of idle) ctx.tally(`idle connection ${p.ending ? endingOutcome(p.ending) : 'still open'}`);
      for (const p of idle) p.close();
    },
  },
  {
    name: 'five networks that leave 16 terminals each',
    before: 'maxTerminals (64) exhausted for the detached lifetime, an hour',
    defendedBy: 'limits',
    async run(ctx) {
      await Promise.all(
        Array.from({ length: 5 }, async (_, s) => {
          const peer = await SoakPeer.connect(ctx.url, ctx.token, `127.0.${60 + s}.1`);
          if (!(peer instanceof SoakPeer)) return ctx.tally(endingOutcome(peer));
          for (let t = 1; t <= 16; t++) peer.send('Subscribe', 0, { streamId: t, terminal: `hoard-${s}-${t}` });
          await sleep(2000);
          for (const [code, n] of peer.errorCodes) for (let i = 0; i < n; i++) ctx.tally(`hoarder error ${code}`);
          peer.close();
        }),
      );
      await newcomers(ctx);
    },
  },
  {
    name: 'unauthenticated sockets from 40 loopback networks',
    before: '131,000 sockets in 30 s from 40 loopback addresses dropped 3 of 21 healthy new connections',
    defendedBy: 'limits',
    async run(ctx) {
      const url = new URL(ctx.url);
      await Promise.all(
        Array.from({ length: FLOOD_NETWORKS }, async (_, s) => {
          while (running(ctx)) {
            const closed = await Promise.all(Array.from({ length: FLOOD_BURST }, () => unfinishedRequest(url, `127.0.${80 + s}.1`)));
            for (const byServer of closed) ctx.tally(byServer ? 'flood socket dropped by the server' : `flood socket given up after ${FLOOD_SOCKET_MS} ms`);
          }
        }),
      );
    },
  },
];
