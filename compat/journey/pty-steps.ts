import type { JourneyStep } from './steps.js';
import { JOURNEY_TERMINAL, JOURNEY_VIEWPORT } from './steps.js';

/** What the PTY pass types: arithmetic, so the output line differs from the echoed command line. */
export const PTY_TYPED_BEFORE_DROP = 'echo one-$((40+2))\r';
export const PTY_TYPED_AFTER_RECONNECT = 'echo two-$((40+3))\r';
export const PTY_TYPED_DURING_DROP = 'echo dark-$((40+4))\r';

const lineShown = (screen: string, line: string) => screen.split('\n').some((l) => l.trimEnd() === line);
const shows = (screen: string, line: string) => (lineShown(screen, line) ? undefined : `client screen showing the line '${line}'`);
const got = (log: string, text: string) => (log.includes(text) ? undefined : `terminal input containing ${JSON.stringify(text)}`);
const first = (...checks: Array<string | undefined>) => checks.find((c) => c !== undefined);

/**
 * The second pass, against a real bash in a PTY: frames follow the shell's
 * timing there, so only outcomes are judged (input reached once, screens equal).
 */
export const PTY_JOURNEY: readonly JourneyStep[] = [
  {
    name: 'subscribe',
    act: async ({ client }) => void (await client.call('subscribe', { terminal: JOURNEY_TERMINAL, ...JOURNEY_VIEWPORT })),
    done: (o) => (o.client.subscribedCount >= 1 ? undefined : 'a subscribed event on the client'),
  },
  {
    name: 'initialSnapshot',
    done: (o) => (o.client.snapshots.length >= 1 && o.client.screen.includes('$') ? undefined : 'an initial snapshot showing the prompt'),
  },
  {
    name: 'input',
    act: async ({ client }) => void (await client.call('write', { data: PTY_TYPED_BEFORE_DROP })),
    done: (o) => first(got(o.host.inputLog, PTY_TYPED_BEFORE_DROP), shows(o.client.screen, 'one-42')),
  },
  {
    name: 'drop',
    act: async ({ drop, client }) => {
      drop('silent');
      await client.call('write', { data: PTY_TYPED_DURING_DROP });
    },
    done: (o, before) => (o.client.disconnects > before.client.disconnects ? undefined : 'the client noticing the dead link'),
  },
  {
    name: 'resubscribe',
    done: (o, before) => (o.client.subscribedCount > before.client.subscribedCount && o.client.snapshots.length > before.client.snapshots.length ? undefined : 'a subscribed event and a snapshot on the new connection'),
  },
  {
    name: 'inputAfterReconnect',
    act: async ({ client }) => void (await client.call('write', { data: PTY_TYPED_AFTER_RECONNECT })),
    done: (o) =>
      first(
        got(o.host.inputLog, PTY_TYPED_AFTER_RECONNECT),
        shows(o.client.screen, 'two-43'),
        o.client.negotiated?.inputAck ? got(o.host.inputLog, PTY_TYPED_DURING_DROP) : undefined,
      ),
  },
];
