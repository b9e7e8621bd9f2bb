import { expect } from 'vitest';
import type { HostLimits } from '../../src/host/options.js';
import type { WsServerOptions } from '../../src/transport/ws-server.js';
import { ScriptBackend } from '../../src/host/script-backend.js';
import { Abuser } from '../helpers/abuser.js';
import { retainedBytes } from '../helpers/retained-memory.js';
import type { RawPeer } from '../helpers/raw-peer.js';
import { startTestHost, TEST_TOKEN, type TestHost } from './harness.js';

const MiB = 1024 * 1024;

/**
 * One real host behind a real WebSocket server, with a script terminal for
 * the abuser and one for a healthy client that keeps typing. Memory is what
 * the test process retains after a full collection (retainedBytes): host and
 * peers share the process, and the Abuser keeps no frames, so what grows is the host.
 */
export interface LimitsRig extends TestHost {
  /** The script terminals by name, as the host opened them. */
  readonly backends: Map<string, ScriptBackend>;
  readonly healthy: RawPeer;
  abuser(): Promise<Abuser>;
  /** Types a fresh marker on the healthy stream and waits for its echo; returns the round trip in ms. */
  echo(): Promise<number>;
  /** Fails unless retained memory grew by less than `mib` since the rig started. */
  expectRetainedGrowthUnder(mib: number): void;
}

export async function startLimitsRig(limits: Partial<HostLimits> = {}, server: Partial<WsServerOptions> = {}): Promise<LimitsRig> {
  const backends = new Map<string, ScriptBackend>();
  const test = await startTestHost({
    limits,
    // Screens are parsed inline here so that their memory is counted in this thread's heap, which is
    // what the rig measures; the screen worker runs the same ScreenBook.
    screenThread: 'inline',
    terminals: (name) => {
      const backend = new ScriptBackend({ banner: `${name}\r\n$ ` });
      backends.set(name, backend);
      return backend;
    },
  }, server);
  const healthy = await test.connect();
  healthy.subscribe(1, 'healthy');
  await healthy.waitFor(() => healthy.snapshots(1).length === 1, 'the healthy client subscribed');
  const baseline = retainedBytes();
  const abusers: Abuser[] = [];
  let marker = 0;
  return {
    ...test,
    backends,
    healthy,
    async abuser() {
      const abuser = await Abuser.connect(test.server.url, TEST_TOKEN);
      abusers.push(abuser);
      return abuser;
    },
    async echo() {
      const text = `echo${++marker}`;
      const started = performance.now();
      healthy.send('Input', 1, text);
      await healthy.waitFor(() => healthy.outputText(1).includes(text), `the healthy client's echo of ${text}`);
      return performance.now() - started;
    },
    expectRetainedGrowthUnder(mib: number) {
      const grown = (retainedBytes() - baseline) / MiB;
      if (process.env.SHOW_MEMORY) console.log(`retained memory grew ${grown.toFixed(1)} MiB`);
      expect(grown, `retained memory grew ${grown.toFixed(1)} MiB`).toBeLessThan(mib);
    },
    async close() {
      for (const a of abusers) a.terminate();
      await test.close();
    },
  };
}
