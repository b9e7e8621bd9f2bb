import { afterEach, describe, expect, it } from 'vitest';
import { HostRuntime } from '../../src/host/runtime.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import type { TerminalSubscriber } from '../../src/host/hosted-terminal.js';

// Issue 41: five clients that opened 16 terminal names each and left
// exhausted maxTerminals for the detached lifetime (an hour). A newcomer now
// gets the place of the heaviest holder's longest-detached terminal.

const viewer: TerminalSubscriber = { output() {}, resized() {}, title() {}, exit() {} };

describe('limit: fair shares of maxTerminals', () => {
  let host: HostRuntime | undefined;
  afterEach(async () => host?.close());

  function start(): { host: HostRuntime; backends: Map<string, ScriptBackend>; log: string[] } {
    const backends = new Map<string, ScriptBackend>();
    const log: string[] = [];
    host = new HostRuntime({
      limits: { maxTerminals: 4, maxTerminalsPerConnection: 3 },
      screenThread: 'inline',
      log: (line) => log.push(line),
      terminals: (name) => {
        const backend = new ScriptBackend();
        backends.set(name, backend);
        return backend;
      },
    });
    return { host, backends, log };
  }

  const started = (host: HostRuntime, name: string, source: string) => {
    const found = host.terminalFor(name, source);
    return 'terminal' in found ? 'started' : found.refused;
  };

  it("ends the heaviest holder's longest-detached terminal for a newcomer, never an attached one, and refuses once shares are even", () => {
    const { host, backends, log } = start();
    for (const name of ['a1', 'a2', 'a3']) expect(started(host, name, 'hoarder')).toBe('started');
    // a1 has a viewer: it is never the one to go.
    host.terminal('a1')!.attach(viewer);
    expect(started(host, 'b1', 'other')).toBe('started');
    expect(started(host, 'n1', 'newcomer')).toBe('started');
    expect(host.counters.terminalsEvicted).toBe(1);
    expect(host.terminal('a2')).toBeUndefined(); // detached first of the hoarder's detached ones
    expect(backends.get('a2')!.exited).toBe(true);
    expect(host.terminal('a1')).toBeDefined();
    expect(log).toEqual([`termwire: TERMINAL_EVICTED: detached terminal 'a2' ended for a newcomer: 3 running terminals started from hoarder, the most on this host, at maxTerminals 4`]);
    // The hoarder holds 2 now, the newcomer 1: one more newcomer takes a3 (2 >= 0 + 2) ...
    expect(started(host, 'm1', 'second newcomer')).toBe('started');
    expect(host.terminal('a3')).toBeUndefined();
    // ... and then every holder has one or is one short: a third is refused, as before.
    expect(started(host, 'x1', 'third newcomer')).toBe('TERMINALS_PER_SERVER_LIMIT');
    expect(host.counters.terminalsEvicted).toBe(2);
  });
});
