import type { BuildInfo } from '../build-info.js';
import { CompatError } from '../errors.js';
import type { PairingRecording, Side, StepResult } from '../recording.js';
import type { Observation } from './observed-state.js';
import { PeerProcess } from './peer-process.js';
import { recordFrames } from './record-frames.js';
import { type ProxiedFrame, RecordingProxy } from './recording-proxy.js';
import { PTY_JOURNEY, PTY_TYPED_AFTER_RECONNECT, PTY_TYPED_BEFORE_DROP, PTY_TYPED_DURING_DROP } from './pty-steps.js';
import { JOURNEY, type JourneyStep, type StepContext, TYPED_AFTER_RECONNECT, TYPED_BEFORE_DROP, TYPED_DURING_DROP } from './steps.js';

/** A journey: which terminal the host serves, the steps, and everything the client types in them. */
export interface JourneyPlan {
  readonly hostBackend: 'script' | 'pty';
  readonly steps: readonly JourneyStep[];
  readonly typed: string;
  /** The part of `typed` typed into a dead link. */
  readonly atMostOnce: string;
}

export const SCRIPT_PLAN: JourneyPlan = { hostBackend: 'script', steps: JOURNEY, typed: TYPED_BEFORE_DROP + TYPED_DURING_DROP + TYPED_AFTER_RECONNECT, atMostOnce: TYPED_DURING_DROP };
export const PTY_PLAN: JourneyPlan = { hostBackend: 'pty', steps: PTY_JOURNEY, typed: PTY_TYPED_BEFORE_DROP + PTY_TYPED_DURING_DROP + PTY_TYPED_AFTER_RECONNECT, atMostOnce: PTY_TYPED_DURING_DROP };

export interface JourneyOptions {
  /** Longest a step may wait for its barrier before it is reported stalled. Default 15000. */
  readonly stepDeadlineMs: number;
  /** How often the barrier polls the peers' state. Default 20. */
  readonly pollMs: number;
  /** Client liveness: ping interval and pong deadline, short so a silent drop is noticed quickly. Default 200 / 1000 (five missed pings: a busy CI machine must not fake a drop). */
  readonly clientPingIntervalMs: number;
  readonly clientPongDeadlineMs: number;
  /** After the last step, how long outcomes may take to settle (equal screens) before they are read. Default 3000. */
  readonly settleDeadlineMs: number;
  /** Pairings run at once; each is two mostly idle peer processes and a proxy. Default 2 (the cores CI has). */
  readonly concurrentPairings: number;
}

export const DEFAULT_JOURNEY_OPTIONS: JourneyOptions = Object.freeze({
  stepDeadlineMs: 15_000,
  pollMs: 20,
  clientPingIntervalMs: 200,
  clientPongDeadlineMs: 1_000,
  settleDeadlineMs: 3_000,
  concurrentPairings: 2,
});

export interface PairingBuild {
  readonly side: Side;
  readonly build: BuildInfo;
  /** This build's decoder in a process of its own (peer role 'codec'). */
  readonly codec: PeerProcess;
}

class StepStalled extends Error {
  constructor(readonly missing: string) {
    super(missing);
  }
}

/** Runs the journey once with `client` against `host` through a recording proxy. */
export async function runPairing(client: PairingBuild, host: PairingBuild, options: JourneyOptions = DEFAULT_JOURNEY_OPTIONS, plan: JourneyPlan = SCRIPT_PLAN): Promise<PairingRecording> {
  const label = `${client.side} client × ${host.side} host${plan.hostBackend === 'pty' ? ' (pty)' : ''}`;
  const peerErrors: string[] = [];
  const steps: StepResult[] = [];
  let hostPeer: PeerProcess | undefined;
  let clientPeer: PeerProcess | undefined;
  let proxy: RecordingProxy | undefined;
  let finalObservation: Observation | undefined;
  let captured: ProxiedFrame[] = [];
  let advertised = { client: client.build.manifest.advertised.client, host: host.build.manifest.advertised.host };
  try {
    proxy = new RecordingProxy();
    const proxyUrl = await proxy.listen();
    // Both peers start at once; the proxy holds the client's connection until the host is listening.
    const starting = [
      PeerProcess.start({ buildDir: host.build.dir, role: 'host', args: ['--backend', plan.hostBackend], label: `${host.side} host ${host.build.version}` }),
      PeerProcess.start({
        buildDir: client.build.dir,
        role: 'client',
        label: `${client.side} client ${client.build.version}`,
        args: ['--url', proxyUrl, '--token', proxy.token, '--ping-interval-ms', String(options.clientPingIntervalMs), '--pong-deadline-ms', String(options.clientPongDeadlineMs)],
      }),
    ] as const;
    const [hostStarted, clientStarted] = await Promise.allSettled(starting);
    if (hostStarted.status === 'fulfilled') hostPeer = hostStarted.value;
    if (clientStarted.status === 'fulfilled') clientPeer = clientStarted.value;
    if (hostStarted.status === 'rejected') throw hostStarted.reason;
    if (clientStarted.status === 'rejected') throw clientStarted.reason;
    hostPeer = hostStarted.value;
    clientPeer = clientStarted.value;
    proxy.connectTo({ url: hostPeer.hello.url!, token: hostPeer.hello.token! });
    // What the running builds say they advertise wins over their manifests.
    advertised = { client: clientPeer.hello.advertised, host: hostPeer.hello.advertised };
    const peers = { client: clientPeer, host: hostPeer };
    const observe = async (): Promise<Observation> => ({ client: await peers.client.call('state'), host: await peers.host.call('state') });
    const until = async (missing: (o: Observation) => string | undefined, deadlineMs = options.stepDeadlineMs) => {
      const deadline = Date.now() + deadlineMs;
      for (;;) {
        const observation = await observe();
        const gap = missing(observation);
        if (gap === undefined) return observation;
        if (Date.now() > deadline) throw new StepStalled(gap);
        await new Promise((resolve) => setTimeout(resolve, options.pollMs));
      }
    };
    let stalled = false;
    for (const step of plan.steps) {
      if (stalled) {
        steps.push({ name: step.name, status: 'skipped', durationMs: 0 });
        continue;
      }
      proxy.step = step.name;
      const started = Date.now();
      try {
        const before = await observe();
        // A reconnect begun in the drop step is held at the proxy until the next step has taken its 'before'.
        proxy.holdNewConnections = step.name === 'drop';
        const ctx: StepContext = { client: clientPeer, host: hostPeer, before, drop: (mode) => proxy!.drop(mode), until: async (m) => void (await until(m)) };
        await step.act?.(ctx);
        await until((o) => step.done(o, before));
        steps.push({ name: step.name, status: 'ok', durationMs: Date.now() - started });
      } catch (error) {
        stalled = true;
        const missing = error instanceof StepStalled ? error.missing : `control error: ${(error as Error).message}`;
        steps.push({ name: step.name, status: 'stalled', missing, durationMs: Date.now() - started });
      }
    }
    // Outcomes are read once everything has settled: a real shell's prompt may land in a later read,
    // and a late duplicate write must be seen. Equal screens end the wait early; a deadline ends it otherwise.
    finalObservation = await until((o) => (o.client.screen === o.host.screen ? undefined : 'equal screens'), options.settleDeadlineMs).catch(() => observe().catch(() => undefined));
  } catch (error) {
    // The peers never got as far as the journey: nothing was compared, so this is exit 2, never a finding or a pass.
    throw new CompatError('PEER_UNAVAILABLE', `${label}: ${(error as Error).message}`);
  } finally {
    for (const peer of [clientPeer, hostPeer]) {
      if (peer && steps.some((s) => s.status === 'stalled')) peerErrors.push(...peer.recentLog(10).map((l) => `${peer.label}: ${l}`));
    }
    await Promise.all([clientPeer?.stop(), hostPeer?.stop()]);
    await proxy?.close();
    captured = proxy?.frames ?? [];
  }
  return {
    client: client.side,
    host: host.side,
    clientVersion: client.build.version,
    hostVersion: host.build.version,
    steps,
    frames: await recordFrames(captured, { client: client.codec, host: host.codec }),
    advertised,
    negotiated: finalObservation?.client.negotiated ?? undefined,
    input: { typed: plan.typed, reachedTerminal: finalObservation?.host.inputLog ?? '', atMostOnce: plan.atMostOnce },
    screens: { client: finalObservation?.client.screen ?? '', host: finalObservation?.host.screen ?? '' },
    peerErrors: [...peerErrors, ...(finalObservation ? [...finalObservation.client.errors, ...finalObservation.host.errors] : [])],
  };
}
