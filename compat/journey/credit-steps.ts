import type { Observation } from './observed-state.js';
import { screenfulsThenMarker } from './screenfuls.js';
import { first, JOURNEY_TERMINAL, JOURNEY_VIEWPORT, type JourneyStep, MULTIBYTE, negotiates, sameScreens, SCRIPT_BANNER, screenShows, terminalGot } from './steps.js';
import { outputAllAcknowledged, snapshotRequestsAnswered, WIRE } from './wire-view.js';

const KiB = 1024;

/** The second terminal the driving client subscribes beside the journey's, on the same connection. */
export const SIDE_TERMINAL = 'side';
const SIDE_EXIT = 'exit\r';

/**
 * Two streams on one connection, to two terminals printing in turn: each
 * stream must carry its own terminal's output, seq and credit, and input typed
 * on one reaches only its terminal. The side terminal exits and its stream
 * closes, so later steps find the connection as before. `draw` makes the texts
 * of an explore draw its own; the script journey is draw 0.
 */
export function twoStreamsStep(draw: number): JourneyStep {
  const line = (where: 'main' | 'side', n: number) => `two streams ${draw}.${n} ${where} ${MULTIBYTE}\r\n`;
  const sideInput = `echo side ${draw} ${MULTIBYTE}\r`;
  const also = (o: Observation) => o.client.also;
  return {
    name: 'twoStreams',
    needs: { host: ['emitOn'], client: ['subscribeAlso', 'writeAlso', 'unsubscribeAlso'] },
    act: async ({ client, host, until, before, flow }) => {
      await client.call('subscribeAlso', { terminal: SIDE_TERMINAL, ...JOURNEY_VIEWPORT });
      await until((o) =>
        (also(o)?.subscribedCount ?? 0) > (also(before)?.subscribedCount ?? 0) && (also(o)?.snapshots ?? 0) > (also(before)?.snapshots ?? 0) && also(o)?.screen.startsWith(SCRIPT_BANNER)
          ? undefined
          : "the second stream subscribed and painted with a fresh side terminal's banner",
      );
      // Past the side stream's first window: only its own Acks let the rest through.
      await host.call('emitOn', { terminal: SIDE_TERMINAL, text: screenfulsThenMarker(`side burst ${draw}`, flow.sideBurstBytes) });
      for (const n of [1, 2, 3]) {
        await host.call('emitOn', { terminal: JOURNEY_TERMINAL, text: line('main', n) });
        await host.call('emitOn', { terminal: SIDE_TERMINAL, text: line('side', n) });
      }
      await client.call('writeAlso', { data: sideInput });
      await until((o) =>
        first(
          also(o)?.screen.includes(line('side', 3).trim()) ? undefined : "the side terminal's last line on the second stream",
          also(o)?.screen.includes(`ran: ${sideInput.trim()}`) ? undefined : 'the side terminal answering the input typed on the second stream',
          also(o)?.screen.includes(`two streams ${draw}.1 main`) ? "the second stream without the main terminal's lines" : undefined,
        ),
      );
      await client.call('writeAlso', { data: SIDE_EXIT });
      await until((o) => ((also(o)?.exits ?? 0) > (also(before)?.exits ?? 0) ? undefined : "the side terminal's exit on the second stream"));
      await client.call('unsubscribeAlso');
    },
    done: (o) =>
      first(
        also(o)?.unsubscribed ? undefined : 'the second stream unsubscribed',
        screenShows(o, line('main', 3).trim()),
        o.client.screen.includes(`two streams ${draw}.1 side`) || o.client.screen.includes(sideInput.trim()) ? "the main stream without the side terminal's output" : undefined,
        terminalGot(o, sideInput) === undefined ? 'the main terminal without the input typed on the second stream' : undefined,
        sameScreens(o),
      ),
  };
}

/**
 * The proxy holds the client's Acks while the host prints past window and
 * queue (the run's overflowEmitBytes, journey-flow.ts), so the host must
 * drop output and repaint with an overflow snapshot once credit returns.
 * `draw` makes an explore draw's end marker its own.
 */
export function overflowStep(draw: number): JourneyStep {
  const label = `overflow ${draw}`;
  return {
    name: 'overflowRecovery',
    notApplicable: (before) => (negotiates(before.client, 'ackOutput') ? undefined : 'ackOutput not negotiated: output never waits for credit, so no queue overflows'),
    act: async ({ host, withholdAcks, releaseAcks, until, flow }) => {
      // Nothing in flight first: Acks of earlier output still on their way would be held too, the host's credit would be
      // short by them, and its queue would overflow a frame earlier in some runs than in others.
      await until((o) => outputAllAcknowledged(o, 'primary'));
      // The host's emit runs to its end before the op answers, queue overflow included; only then does credit come back.
      withholdAcks('primary');
      try {
        await host.call('emit', { text: screenfulsThenMarker(label, flow.overflowEmitBytes) });
      } finally {
        releaseAcks();
      }
    },
    done: (o, before) =>
      first(
        // Any snapshot: its source ('overflow') is compared by value, so a host that renames it is a finding, not a stall.
        o.client.snapshots.length > before.client.snapshots.length ? undefined : 'a snapshot repainting what the host dropped',
        screenShows(o, `${label} end`),
        sameScreens(o),
      ),
  };
}

/** Output the host sends while the client waits for a repaint it asked for: small, well inside any window. */
const IGNORED_OUTPUT_BYTES = 16 * KiB;

/**
 * The client asks for a repaint (reveal) while output the host already sent
 * is held at the proxy: the hold is lifted only once the reveal has been
 * made, so a client that asked reads that output while it awaits the
 * snapshot, in every run. It ignores the output (the snapshot covers it) but
 * must still return its credit: the host's window counts bytes sent. A client
 * that credits only what it applies shrinks the window for good; the Ack total
 * of the stream (compared when it ends cleanly) shows it. The barrier waits on
 * the outcome, the repainted screen, not on the request: a client repainted
 * another way passes. After the reconnect, so the stream is the one the
 * journey ends with an Unsubscribe.
 */
export function ignoredOutputStep(draw: number): JourneyStep {
  const label = `ignored ${draw}`;
  const heldText = (held: readonly Uint8Array[]) => Buffer.concat(held.filter((f) => f[2] === WIRE.opcode.Output).map((f) => f.subarray(WIRE.headerBytes))).toString('utf8');
  return {
    name: 'ignoredOutput',
    act: async ({ client, host, until, holdToClient, heldToClient, releaseToClient }) => {
      // Nothing in flight first, so what the client credits in this step is this step's output.
      await until((o) => (negotiates(o.client, 'ackOutput') ? outputAllAcknowledged(o, 'primary') : undefined));
      holdToClient('primary');
      try {
        await host.call('emit', { text: screenfulsThenMarker(label, IGNORED_OUTPUT_BYTES) });
        await until(() => (heldText(heldToClient()).includes(`${label} end`) ? undefined : `the host's output up to '${label} end', held at the proxy`));
        // The client peer answers once reveal() has run: a request it made is already awaited when the output arrives.
        await client.call('reveal');
      } finally {
        releaseToClient();
      }
    },
    done: (o, before) => first(snapshotRequestsAnswered(o, before), screenShows(o, `${label} end`), sameScreens(o)),
  };
}
