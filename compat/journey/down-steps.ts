import type { Observation } from './observed-state.js';
import { first, type JourneyStep, MULTIBYTE } from './steps.js';
import { payloadText, snapshotRequestsAnswered, unpauseRepainted, WIRE } from './wire-view.js';

/**
 * Typed once the client knows the link is down (its reconnect waits at the
 * proxy): held by the client and sent once the link is back, exactly once
 * whatever was negotiated. It ends in LF, not CR: a build that rewrites line
 * ends in input shows in what the terminal receives.
 */
export const TYPED_WHILE_DOWN = `echo down ${MULTIBYTE}\n`;

/** Pasted while the link is down, then cancelled: none of it was confirmed, so none of it may reach the terminal. */
export const WITHDRAWN_PASTE_LINES = 1_100; // about 19 KB: two chunks
export const withdrawnPasteText = (label: string) => Array.from({ length: WITHDRAWN_PASTE_LINES }, (_, i) => `withdrawn ${label} line ${i}\r`).join('');

const stillDown = (connected: boolean) => (connected ? 'the client still waiting for its reconnect (the proxy holds it)' : undefined);

/** Keys typed into a link the client already declared dead: held, then delivered once (the run's barriers wait for them after the reconnect). */
export function typedWhileDownStep(text: string): JourneyStep {
  return {
    name: 'typedWhileDown',
    typed: text,
    holdsReconnect: true,
    heldUntilReconnect: true,
    act: async ({ client }) => void (await client.call('write', { data: text })),
    done: (o) => stillDown(o.client.connected),
  };
}

/** A paste made while down and cancelled before the link is back: its chunks are withdrawn, never typed. */
export function pasteWithdrawnStep(text: string): JourneyStep {
  return {
    name: 'pasteWithdrawn',
    needs: { client: ['cancelPaste'] },
    holdsReconnect: true,
    // What the terminal receives judges the withdrawal (INPUT_NOT_EXACTLY_ONCE), not the count cancel answers.
    act: async ({ client }) => {
      await client.call('paste', { text });
      await client.call('cancelPaste');
    },
    done: (o) => stillDown(o.client.connected),
  };
}

/** SetOutputPaused {paused: true} frames the primary client sent since the step began. */
const pausesSent = (o: Observation, before: Observation) =>
  o.wire.slice(before.wireCount).filter((f) => f.client === 'primary' && f.direction === 'clientToHost' && f.opcode === WIRE.opcode.SetOutputPaused && /"paused":\s*true/.test(payloadText(f))).length;

/**
 * The client hides, its link closes and comes back while it is hidden: where
 * outputPause is negotiated, the client must pause the new stream again (its
 * wish outlives the link), and the reveal then repaints. Nothing is printed
 * meanwhile: the old stream may still be the host's for a moment after the
 * close, so what reached the terminal then would depend on timing. The
 * re-pause is read from the wire, the second pause of the step.
 */
export const hiddenAcrossReconnect: JourneyStep = {
  name: 'hiddenAcrossReconnect',
  act: async ({ client, until, drop, before }) => {
    await client.call('hide');
    await until((o) => (o.client.negotiated?.outputPause && o.host.pausedStreams < 1 ? 'the host to pause the hidden stream' : undefined));
    drop('close');
    await until((o) => (o.client.subscribedCount > before.client.subscribedCount && o.client.snapshots.length > before.client.snapshots.length ? undefined : 'the hidden client resubscribed after the closed link'));
    await until((o) => (o.client.negotiated?.outputPause && pausesSent(o, before) < 2 ? 'the hidden client pausing its new stream' : undefined));
    await client.call('reveal');
  },
  done: (o, before) => first(snapshotRequestsAnswered(o, before), unpauseRepainted(o, before), o.client.screen === o.host.screen ? undefined : 'the revealed screen equal to the host screen'),
};

export const DOWN_STEPS = {
  typedWhileDown: typedWhileDownStep(TYPED_WHILE_DOWN),
  pasteWithdrawn: pasteWithdrawnStep(withdrawnPasteText('journey')),
  hiddenAcrossReconnect,
} satisfies Record<string, JourneyStep>;
