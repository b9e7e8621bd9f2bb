import { connect as tcpConnect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Ending, SoakPeer } from './peer.js';

/** The wrong-token guesser's own loopback address (Linux answers all of 127.0.0.0/8). */
const GUESSER_ADDRESS = '127.0.0.2';

export interface AbuserContext {
  readonly url: string;
  readonly token: string;
  /** performance.now() at which to stop. */
  readonly until: number;
  /** Counts one outcome ("error RESIZE_TOO_LARGE", "closed 1008 ERROR_RATE", "refused HTTP 401"). */
  tally(outcome: string): void;
}

export interface Abuser {
  readonly name: string;
  /** Who defends against it: this branch's limits, or the hardening done elsewhere in issue 9. */
  readonly defendedBy: 'limits' | 'hardening';
  run(ctx: AbuserContext): Promise<void>;
}

export const running = (ctx: AbuserContext) => performance.now() < ctx.until;

export function endingOutcome(ending: Ending): string {
  if (ending.kind === 'refused') return `refused HTTP ${ending.status}`;
  if (ending.kind === 'failed') return `connect failed: ${ending.message.slice(0, 40)}`;
  const code = /^[A-Z_]+(?=:)/.exec(ending.reason)?.[0];
  return `closed ${ending.code}${code ? ` ${code}` : ''}`;
}

/** Connects (tallying a refusal), runs `abuse` on the peer, tallies its errors and how it ended. */
export async function session(ctx: AbuserContext, abuse: (peer: SoakPeer) => Promise<void>): Promise<void> {
  const peer = await SoakPeer.connect(ctx.url, ctx.token);
  if (!(peer instanceof SoakPeer)) {
    ctx.tally(endingOutcome(peer));
    await sleep(100);
    return;
  }
  try {
    await abuse(peer);
    // A close the server started is still in flight when the abuse loop sees the peer is no longer open.
    if (!peer.isOpen) await Promise.race([peer.whenClosed(), sleep(2000)]);
  } finally {
    for (const [code, n] of peer.errorCodes) for (let i = 0; i < n; i++) ctx.tally(`error ${code}`);
    if (peer.ending) ctx.tally(endingOutcome(peer.ending));
    else ctx.tally('left by the abuser');
    peer.close();
  }
}

/** Waits until the peer is closed or the soak ends. */
async function closedOrDone(ctx: AbuserContext, peer: SoakPeer): Promise<void> {
  const left = ctx.until - performance.now();
  await Promise.race([peer.whenClosed(), sleep(Math.max(0, left))]);
}

const unknownOpcode = new Uint8Array([0x74, 1, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

/** The mix the issue's attacker ran, one entry each. */
export const ABUSERS: readonly Abuser[] = [
  {
    name: 'resize bomb',
    defendedBy: 'limits',
    run: (ctx) =>
      session(ctx, async (peer) => {
        peer.send('Subscribe', 0, { streamId: 1, terminal: 'abuse-resize', viewport: { cols: 65535, rows: 65535 } });
        peer.send('Subscribe', 0, { streamId: 2, terminal: 'abuse-resize' });
        while (running(ctx) && peer.isOpen) {
          peer.send('Resize', 2, { cols: 65535, rows: 65535 });
          peer.send('ClaimViewport', 2, { cols: 65535, rows: 24 });
          await sleep(50);
        }
      }),
  },
  {
    name: 'paused reader answering pings',
    defendedBy: 'limits',
    run: (ctx) =>
      session(ctx, async (peer) => {
        peer.send('Subscribe', 0, { streamId: 1, terminal: 'abuse-paused' });
        await sleep(300);
        // About 1.3 MB/s of output for a reader that never reads it.
        peer.send('Input', 1, 'while :; do seq 1 200000; sleep 1; done\r');
        peer.ws.pause();
        const pongs = setInterval(() => peer.isOpen && peer.ws.pong(), 500);
        await closedOrDone(ctx, peer);
        clearInterval(pongs);
        peer.ws.resume();
      }),
  },
  {
    name: 'Error flood',
    defendedBy: 'limits',
    run: (ctx) =>
      session(ctx, async (peer) => {
        while (running(ctx) && peer.isOpen) {
          // Paced so the soak's own process, sharing the cores, does not starve the typists it measures.
          for (let i = 0; i < 200; i++) peer.sendRaw(unknownOpcode);
          await sleep(20);
        }
      }),
  },
  {
    name: 'snapshot flood',
    defendedBy: 'limits',
    run: (ctx) =>
      session(ctx, async (peer) => {
        peer.send('Subscribe', 0, { streamId: 1, terminal: 'abuse-snapshot' });
        for (let i = 0; running(ctx) && peer.isOpen; i++) {
          for (let j = 0; j < 50; j++) peer.send('SnapshotRequest', 1, { requestId: `r${i}-${j}` });
          await sleep(20);
        }
      }),
  },
  {
    name: 'stream hoarding',
    defendedBy: 'limits',
    run: (ctx) =>
      session(ctx, async (peer) => {
        for (let id = 1; id <= 5000 && peer.isOpen; id++) {
          peer.send('Subscribe', 0, { streamId: id, terminal: 'abuse-streams' });
          if (id % 100 === 0) await sleep(10);
        }
        await closedOrDone(ctx, peer);
      }),
  },
  {
    name: 'socket flood (no upgrade)',
    defendedBy: 'hardening',
    async run(ctx) {
      const { hostname, port } = new URL(ctx.url);
      while (running(ctx)) {
        const sockets: Socket[] = [];
        let closedByServer = 0;
        for (let i = 0; i < 200; i++) {
          const socket = tcpConnect(Number(port), hostname);
          socket.on('error', () => {});
          socket.on('close', () => closedByServer++);
          sockets.push(socket);
        }
        await sleep(2000);
        const open = sockets.length - closedByServer;
        for (let i = 0; i < closedByServer; i++) ctx.tally('socket closed by server');
        for (let i = 0; i < open; i++) ctx.tally('socket left open by server (2 s)');
        for (const s of sockets) s.destroy();
      }
    },
  },
  {
    name: 'wrong-token guessing',
    defendedBy: 'hardening',
    async run(ctx) {
      for (let i = 0; running(ctx); i++) {
        // From an address of its own, as an attacker elsewhere: the host throttles guessing per network, and its neighbours on 127.0.0.1 are not it.
        const peer = await SoakPeer.connect(ctx.url, `guess-${i}`, GUESSER_ADDRESS);
        if (peer instanceof SoakPeer) {
          ctx.tally('accepted a wrong token!');
          peer.close();
        } else ctx.tally(endingOutcome(peer));
      }
    },
  },
  {
    name: 'terminal hoarding',
    defendedBy: 'hardening',
    run: (ctx) =>
      session(ctx, async (peer) => {
        // 50, not the issue's 300: each is a real bash on a machine other work shares.
        for (let id = 1; id <= 50 && peer.isOpen; id++) peer.send('Subscribe', 0, { streamId: id, terminal: `hoard-${id}` });
        await closedOrDone(ctx, peer);
      }),
  },
  {
    name: 'reconnect storm',
    defendedBy: 'limits',
    async run(ctx) {
      while (running(ctx)) {
        await session(ctx, async (peer) => {
          peer.send('Subscribe', 0, { streamId: 1, terminal: 'abuse-storm' });
          await sleep(5);
        });
      }
    },
  },
];
