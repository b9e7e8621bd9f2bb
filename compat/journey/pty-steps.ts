import { dropStep, first, type JourneyStep, SUBSCRIBE_STEP, terminalGot } from './steps.js';
import { resumedOrRepainted } from './wire-view.js';

/** What the PTY pass types: arithmetic, so the output line differs from the echoed command line. */
export const PTY_TYPED_BEFORE_DROP = 'echo one-$((40+2))\r';
export const PTY_TYPED_AFTER_RECONNECT = 'echo two-$((40+3))\r';
export const PTY_TYPED_DURING_DROP = 'echo dark-$((40+4))\r';

const lineShown = (screen: string, line: string) => screen.split('\n').some((l) => l.trimEnd() === line);
const shows = (screen: string, line: string) => (lineShown(screen, line) ? undefined : `client screen showing the line '${line}'`);

/**
 * The second pass, against a real bash in a PTY: frames follow the shell's
 * timing there, so only outcomes are judged (input reached once, screens equal).
 */
export const PTY_JOURNEY: readonly JourneyStep[] = [
  SUBSCRIBE_STEP,
  {
    name: 'initialSnapshot',
    done: (o) => (o.client.snapshots.length >= 1 && o.client.screen.includes('$') ? undefined : 'an initial snapshot showing the prompt'),
  },
  {
    name: 'input',
    typed: PTY_TYPED_BEFORE_DROP,
    act: async ({ client }) => void (await client.call('write', { data: PTY_TYPED_BEFORE_DROP })),
    done: (o) => first(terminalGot(o, PTY_TYPED_BEFORE_DROP), shows(o.client.screen, 'one-42')),
  },
  dropStep(PTY_TYPED_DURING_DROP),
  {
    name: 'resubscribe',
    done: (o, before) =>
      first(
        o.client.subscribedCount > before.client.subscribedCount ? undefined : 'a subscribed event on the new connection',
        resumedOrRepainted(o, before, 'a snapshot on the new connection, or a subscribed event saying the output resumed'),
      ),
  },
  {
    name: 'inputAfterReconnect',
    typed: PTY_TYPED_AFTER_RECONNECT,
    act: async ({ client }) => void (await client.call('write', { data: PTY_TYPED_AFTER_RECONNECT })),
    done: (o) =>
      first(
        terminalGot(o, PTY_TYPED_AFTER_RECONNECT),
        shows(o.client.screen, 'two-43'),
        o.client.negotiated?.inputAck ? terminalGot(o, PTY_TYPED_DURING_DROP) : undefined,
      ),
  },
];
