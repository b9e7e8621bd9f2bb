import { setTimeout as sleep } from 'node:timers/promises';
import { endingOutcome, running, session } from './abusers.js';
import { Op } from '../../src/codec/opcodes.js';
import { SoakPeer } from './peer.js';
import { type Attack, drained, typeUntilShown } from './attack-helpers.js';
import { ISSUE_41_ATTACKS } from './attacks-41.js';

export type { Attack } from './attack-helpers.js';

const MiB = 1024 * 1024;

/** A shell command that prints the combining-mark fill: every cell an `e` with a combining acute, screen and scrollback full. */
function combiningFill(cols: number, lines: number): string {
  return `yes "$(printf 'e\\xcc\\x81%.0s' $(seq ${cols}))" | head -n ${lines}\r`;
}

/**
 * The attacks of issues 20 and 41 (attacks-41.ts), each run alone against a fresh server by
 * `npm run soak -- --per-attack`, as an outsider with a valid token or an
 * ordinary program would. Each says what took the host down or degraded it
 * before the work that defends against it.
 */
export const ATTACKS: readonly Attack[] = [
  {
    name: 'title of 9,000,000 characters',
    before: 'the whole server exited with code 1 (PAYLOAD_TOO_LARGE thrown in the screen worker handler)',
    defendedBy: 'limits',
    run: (ctx) =>
      session(ctx, async (peer) => {
        peer.send('Subscribe', 0, { streamId: 1, terminal: 'attack-title' });
        while (running(ctx) && peer.isOpen) {
          const outcome = await typeUntilShown(peer, 1, `(printf '\\033]0;'; head -c 9000000 /dev/zero | tr '\\0' a; printf '\\007'); echo title-do""ne\r`, 'title-done', 30_000);
          if (outcome === 'shown') ctx.tally('title printed, host still serving');
          else if (outcome === 'late') ctx.tally('title printed, no prompt within 30 s');
        }
      }),
  },
  {
    name: 'Input flood into a program that never reads',
    before: '3.1 GB after 112 s and rising; the memory stayed after the flood',
    defendedBy: 'limits',
    run: (ctx) =>
      session(ctx, async (peer) => {
        peer.send('Subscribe', 0, { streamId: 1, terminal: 'attack-input' });
        peer.send('Input', 1, 'sleep 100000\r');
        const megabyte = 'x'.repeat(MiB - 64);
        while (running(ctx) && peer.isOpen) {
          peer.send('Input', 1, megabyte);
          await drained(peer, 4 * MiB);
        }
      }),
  },
  {
    name: '199 connections with unfinished 15 MiB messages',
    before: '3.1 GB; all 199 connections still open after a ping cycle',
    defendedBy: 'limits',
    async run(ctx) {
      const fragment = Buffer.alloc(MiB, 0x41);
      await Promise.all(
        Array.from({ length: 199 }, async (_, i) => {
          // Spread over loopback addresses as over a botnet: the per-source connection cap is not what is tested here.
          const peer = await SoakPeer.connect(ctx.url, ctx.token, `127.0.${1 + (i % 200)}.${1 + Math.floor(i / 200)}`);
          if (!(peer instanceof SoakPeer)) return ctx.tally(endingOutcome(peer));
          for (let f = 0; f < 15 && peer.isOpen && running(ctx); f++) {
            peer.ws.send(fragment, { binary: true, fin: false });
            await drained(peer, 2 * MiB);
          }
          await Promise.race([peer.whenClosed(), sleep(Math.max(0, ctx.until - performance.now()))]);
          ctx.tally(peer.ending ? endingOutcome(peer.ending) : 'still open at the end');
          peer.close();
        }),
      );
    },
  },
  {
    name: 'terminal hoarding across reconnects',
    before: 'all 64 terminals held for an hour; a new user got TERMINALS_PER_SERVER_LIMIT; 2.5 GB and rising',
    defendedBy: 'limits',
    async run(ctx) {
      for (let round = 0; running(ctx); round++) {
        await Promise.all(
          Array.from({ length: 4 }, (_, c) =>
            session(ctx, async (peer) => {
              for (let t = 1; t <= 16 && peer.isOpen; t++) {
                peer.send('Subscribe', 0, { streamId: t, terminal: `hoard-r${round}-c${c}-t${t}` });
                peer.send('Input', t, combiningFill(80, 1000));
              }
              await sleep(2000);
            }),
          ),
        );
      }
    },
  },
  {
    name: 'ClaimViewport storm on a shared terminal',
    before: 'a new Subscribe anywhere took 24.4 s and then had no answer; the other viewer got 71,914 Resized frames',
    defendedBy: 'limits',
    async run(ctx) {
      const big = await SoakPeer.connect(ctx.url, ctx.token);
      const small = await SoakPeer.connect(ctx.url, ctx.token);
      if (!(big instanceof SoakPeer) || !(small instanceof SoakPeer)) {
        for (const p of [big, small]) if (p instanceof SoakPeer) p.close();
        else ctx.tally(endingOutcome(p));
        return;
      }
      big.send('Subscribe', 0, { streamId: 1, terminal: 'attack-claims' });
      small.send('Subscribe', 0, { streamId: 1, terminal: 'attack-claims' });
      let claims = 0;
      while (running(ctx) && big.isOpen && small.isOpen) {
        for (let i = 0; i < 50; i++) {
          big.send('ClaimViewport', 1, { cols: 1000, rows: 1000 });
          small.send('ClaimViewport', 1, { cols: 80, rows: 24 });
        }
        claims += 100;
        await Promise.all([drained(big, MiB), drained(small, MiB)]);
        await sleep(1);
      }
      ctx.tally(`claims sent: ${Math.round(claims / 1000)}k`);
      ctx.tally(`Resized frames the small viewer got: ${small.framesOf('Resized')}`);
      for (const p of [big, small]) {
        for (const [code, n] of p.errorCodes) for (let i = 0; i < n; i++) ctx.tally(`error ${code}`);
        p.close();
      }
    },
  },
  {
    name: '16 screens of 1000x1000 filled with combining marks',
    before: '51 MB per screen where the docs said about 24 MB',
    defendedBy: 'limits',
    costPer: 'screen filled',
    run: (ctx) =>
      session(ctx, async (peer) => {
        for (let t = 1; t <= 16 && peer.isOpen; t++) {
          // Past the host's screen budget a Subscribe is refused: its snapshot never comes.
          const answered = peer.nextFrame(Op.SnapshotEnd, t, 5000);
          peer.send('Subscribe', 0, { streamId: t, terminal: `attack-cells-${t}`, viewport: { cols: 1000, rows: 1000 } });
          if (!(await answered)) continue;
          const command = combiningFill(1000, 2000).replace('\r', `; echo cells-do""ne-${t}\r`);
          if ((await typeUntilShown(peer, t, command, `cells-done-${t}`, 60_000)) === 'shown') ctx.tally('screen filled');
          else ctx.tally('screen not filled within 60 s');
        }
        await Promise.race([peer.whenClosed(), sleep(Math.max(0, ctx.until - performance.now()))]);
      }),
  },
  {
    name: '3000 wrong-token upgrades in parallel',
    before: '493 guesses/s: the delay was applied to the answer, not to the judging',
    defendedBy: 'hardening',
    async run(ctx) {
      let guess = 0;
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (running(ctx) && guess < 3000) {
            const peer = await SoakPeer.connect(ctx.url, `guess-${guess++}`, '127.0.0.2');
            if (peer instanceof SoakPeer) {
              ctx.tally('accepted a wrong token!');
              peer.close();
            } else ctx.tally(endingOutcome(peer));
          }
        }),
      );
      await sleep(Math.max(0, ctx.until - performance.now()));
    },
  },
  ...ISSUE_41_ATTACKS,
];
